import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  arpuRpc,
  billingEvents,
  cancelsWindowRpc,
  churnMonthlyRpc,
  cohortRetentionRpc,
  type EventContract,
  funnelRpc,
  identityEvents,
  invoicePaid,
  mrrMovementsRpc,
  mrrTotalsRpc,
  newSubscriptionsWindowRpc,
  projectionStatusRpc,
  rebuildProjectionRpc,
  refundIssued,
  revenueMonthlyRpc,
  revenueWindowRpc,
  subscriptionActivated,
  subscriptionCanceled,
  subscriptionsDailyRpc,
  userRegistered,
  visitsCounted,
} from '@qw/contracts';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import { eventually, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import type { Static, TSchema } from 'typebox';
import { analyticsService } from '../src/app.ts';
import { currentDefinition } from '../src/projection/tables.ts';

/**
 * The analytics service on its own, as it runs: a database and a NATS server of this file (the
 * product's permissions on), billing's and identity's streams declared as their owners declare
 * them, real events published on them, and the figures read over its RPCs as the gateway asks
 * them for a platform admin. The end-to-end figures of the Analytics page, through the gateway,
 * stay in services/gateway/test/analytics.test.ts.
 *
 * - Ann: paid Personal on Jan 10 before claiming it, paid again on Feb 10.
 * - Ben: paid Gaming on Jan 20, refunded 500 on Jan 25 and ended on Feb 5.
 * - Cy signed up on Feb 20 and bought nothing; 7 visits to / on Feb 20.
 *
 * Issue #26, test customers, whose share every figure can leave out (`exclude_customers`, the ids
 * the gateway asks identity for):
 * - Tess, a test account: signed up and paid Personal on Jan 12, refunded 300 on Jan 15, paid
 *   again on Feb 12.
 * - Tess's test organization: paid Gaming on Feb 3 and ended on Feb 25.
 * Without them, every figure is Ann's, Ben's and Cy's alone (the figures below).
 */
const at = (day: string, time = '09:00') => `2026-${day}T${time}:00.000Z`;
const asOf = '2026-02-28';
const [ann, ben, cy] = [randomUUID(), randomUUID(), randomUUID()];
const [s1, s2] = [randomUUID(), randomUUID()];
const [i1, i2, i3] = [randomUUID(), randomUUID(), randomUUID()];
const [tess, testOrg, s3, s4, i4, i5, i6] = Array.from({ length: 7 }, () => randomUUID() as string) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const testCustomers = [tess, testOrg];

type Published = { contract: EventContract; data: unknown; at: string };
const subscription = (subscriptionId: string, userId: string, planCode: string, extra: Record<string, unknown>) => ({
  subscriptionId,
  userId,
  orgId: null,
  planCode,
  status: 'active',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  ...extra,
});
const invoice = (
  invoiceId: string,
  subscriptionId: string,
  userId: string | null,
  plan: string,
  cents: number,
  paidAt: string,
) => ({
  invoiceId,
  subscriptionId,
  userId,
  orgId: null,
  planCode: plan,
  amountCents: cents,
  currency: 'USD',
  periodStart: paidAt,
  periodEnd: paidAt,
  paidAt,
});

const history: Published[] = [
  ...[
    [ann, '01-10'],
    [ben, '01-20'],
    [cy, '02-20'],
  ].map(([userId, day]) => ({
    contract: userRegistered,
    data: { userId, accountType: 'personal', registeredAt: at(day!, '08:00') },
    at: at(day!, '08:00'),
  })),
  {
    contract: invoicePaid,
    data: invoice(i1, s1, null, 'personal', 799, at('01-10', '09:05')),
    at: at('01-10', '09:05'),
  },
  {
    contract: subscriptionActivated,
    data: subscription(s1, ann, 'personal', {
      startedAt: at('01-10', '09:05'),
      effectiveAt: at('01-10', '09:10'),
      monthlyCents: 799,
    }),
    at: at('01-10', '09:10'),
  },
  { contract: invoicePaid, data: invoice(i2, s2, ben, 'gaming', 1199, at('01-20')), at: at('01-20') },
  {
    contract: subscriptionActivated,
    data: subscription(s2, ben, 'gaming', { startedAt: at('01-20'), effectiveAt: at('01-20'), monthlyCents: 1199 }),
    at: at('01-20'),
  },
  {
    contract: refundIssued,
    data: {
      refundId: randomUUID(),
      invoiceId: i2,
      subscriptionId: s2,
      userId: ben,
      orgId: null,
      amountCents: 500,
      issuedAt: at('01-25'),
    },
    at: at('01-25'),
  },
  {
    contract: subscriptionCanceled,
    data: {
      ...subscription(s2, ben, 'gaming', { effectiveAt: at('02-05'), monthlyCents: 1199 }),
      status: 'canceled',
      canceledAt: at('02-05'),
    },
    at: at('02-05'),
  },
  { contract: invoicePaid, data: invoice(i3, s1, ann, 'personal', 799, at('02-10')), at: at('02-10') },
  { contract: visitsCounted, data: { day: '2026-02-20', path: '/', views: 7 }, at: at('02-20', '12:00') },
];

const testHistory: Published[] = [
  {
    contract: userRegistered,
    data: { userId: tess, accountType: 'personal', registeredAt: at('01-12', '08:00') },
    at: at('01-12', '08:00'),
  },
  {
    contract: invoicePaid,
    data: invoice(i4, s3, tess, 'personal', 799, at('01-12', '10:00')),
    at: at('01-12', '10:00'),
  },
  {
    contract: subscriptionActivated,
    data: subscription(s3, tess, 'personal', {
      startedAt: at('01-12', '10:00'),
      effectiveAt: at('01-12', '10:00'),
      monthlyCents: 799,
    }),
    at: at('01-12', '10:00'),
  },
  {
    contract: refundIssued,
    data: {
      refundId: randomUUID(),
      invoiceId: i4,
      subscriptionId: s3,
      userId: tess,
      orgId: null,
      amountCents: 300,
      issuedAt: at('01-15'),
    },
    at: at('01-15'),
  },
  {
    contract: invoicePaid,
    data: { ...invoice(i6, s4, tess, 'gaming', 1199, at('02-03')), orgId: testOrg },
    at: at('02-03'),
  },
  {
    contract: subscriptionActivated,
    data: {
      ...subscription(s4, tess, 'gaming', { startedAt: at('02-03'), effectiveAt: at('02-03'), monthlyCents: 1199 }),
      orgId: testOrg,
    },
    at: at('02-03'),
  },
  { contract: invoicePaid, data: invoice(i5, s3, tess, 'personal', 799, at('02-12')), at: at('02-12') },
  {
    contract: subscriptionCanceled,
    data: {
      ...subscription(s4, tess, 'gaming', { effectiveAt: at('02-25'), monthlyCents: 1199 }),
      orgId: testOrg,
      status: 'canceled',
      canceledAt: at('02-25'),
    },
    at: at('02-25'),
  },
];

let alone: ServiceAlone;
let rpc: RpcClient;
const sign = callerTokenSigner(testCallerKeys.privateKey);
const operator = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: true, emailVerified: true });

async function publish(events: Published[], again = false): Promise<void> {
  for (const event of events) {
    const envelope = await alone.publish(event.contract as EventContract<TSchema>, event.data as Static<TSchema>, {
      at: new Date(event.at),
    });
    // A producer's retry after a lost acknowledgement: the same event under another message id.
    if (again)
      await alone.admin.js.publish(alone.admin.ns.subject(event.contract.subject), JSON.stringify(envelope), {
        msgID: `${envelope.id}-again`,
      });
  }
}

async function settled(): Promise<void> {
  await eventually(
    async () => {
      const status = await rpc.request(projectionStatusRpc, {}, operator);
      return status.building === null && status.live?.pending_events === 0;
    },
    30_000,
    100,
  );
}

/** Every figure of the Analytics page, leaving out the customers named (none: the whole). */
async function figures(exclude: readonly string[] = []) {
  const ask = exclude.length > 0 ? { exclude_customers: [...exclude] } : {};
  const window = { days: 60, as_of: asOf, ...ask };
  const months = { months: 2, as_of: asOf, ...ask };
  return {
    revenue: await rpc.request(revenueWindowRpc, window, operator),
    newSubs: await rpc.request(newSubscriptionsWindowRpc, window, operator),
    cancels: await rpc.request(cancelsWindowRpc, { days: 30, as_of: asOf, ...ask }, operator),
    mrr: await rpc.request(mrrTotalsRpc, { as_of: asOf, ...ask }, operator),
    arpu: await rpc.request(arpuRpc, { days: 30, as_of: asOf, ...ask }, operator),
    daily: await rpc.request(subscriptionsDailyRpc, window, operator),
    monthly: await rpc.request(revenueMonthlyRpc, months, operator),
    movements: await rpc.request(mrrMovementsRpc, months, operator),
    churn: await rpc.request(churnMonthlyRpc, months, operator),
    cohorts: await rpc.request(cohortRetentionRpc, months, operator),
    funnel: await rpc.request(funnelRpc, window, operator),
  };
}
/** The figures without the test customers: what the tests below expect of Ann, Ben and Cy. */
const without = { exclude_customers: testCustomers };

let refusedOnDefinitionOne: unknown;
let wholeOnDefinitionOne: Awaited<ReturnType<typeof figures>>;

beforeAll(async () => {
  // The streams analytics reads but does not own, as billing and identity declare them at their start.
  alone = await startServiceAlone('analytics-service', { billing: billingEvents, identity: identityEvents });
  // First as the code of definition 1 ran (no customer's share kept), then the code of now.
  const first = await alone.launch(analyticsService({ checkEveryMs: 200, retiredGraceMs: 500, definition: 1 }));
  rpc = new RpcClient(await alone.connect('gateway'));
  // Every event twice: the second copy must change nothing.
  await publish([...history, ...testHistory], true);
  await settled();
  wholeOnDefinitionOne = await figures();
  refusedOnDefinitionOne = await rpc.request(mrrTotalsRpc, { as_of: asOf, ...without }, operator).catch((e) => e);
  await first.stop();
  await alone.launch(analyticsService({ checkEveryMs: 200, retiredGraceMs: 500 }));
  await eventually(
    async () => (await rpc.request(projectionStatusRpc, {}, operator)).live?.definition === currentDefinition,
    30_000,
    100,
  );
  await settled();
}, 120_000);

afterAll(() => alone?.stop());

describe('analytics projects billing’s, identity’s and the gateway’s events', () => {
  it('revenue: invoices on the day paid, the refund on the day issued, each event once', async () => {
    expect(await rpc.request(revenueWindowRpc, { days: 60, as_of: asOf, ...without }, operator)).toEqual({
      days: 60,
      from: '2025-12-31',
      to: asOf,
      amount_cents: 2797,
      refunded_cents: 500,
      net_cents: 2297,
      invoices: 3,
    });
    const monthly = await rpc.request(revenueMonthlyRpc, { months: 2, as_of: asOf, ...without }, operator);
    expect(monthly.rows).toEqual([
      { month_start: '2026-01-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 500 },
      { month_start: '2026-01-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
      { month_start: '2026-02-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
    ]);
  });

  it('MRR and subscriptions: Ann counts from her payment, not her claim; Ben’s end is a cancel on its day', async () => {
    expect(await rpc.request(mrrTotalsRpc, { as_of: asOf, ...without }, operator)).toEqual({
      as_of: asOf,
      mrr_total_cents: 799,
      arr_total_cents: 9588,
      paying_customers: 1,
    });
    expect((await rpc.request(mrrTotalsRpc, { as_of: '2026-02-04', ...without }, operator)).mrr_total_cents).toBe(1998);
    const daily = await rpc.request(subscriptionsDailyRpc, { days: 60, as_of: asOf, ...without }, operator);
    expect(daily.rows.filter((row) => row.new_subs + row.cancels > 0)).toEqual([
      { day: '2026-01-10', new_subs: 1, cancels: 0 },
      { day: '2026-01-20', new_subs: 1, cancels: 0 },
      { day: '2026-02-05', new_subs: 0, cancels: 1 },
    ]);
  });

  it('cohorts and the funnel: first payments, months paid, sign-ups and visits', async () => {
    const cohorts = await rpc.request(cohortRetentionRpc, { months: 2, as_of: asOf, ...without }, operator);
    expect(cohorts.cohorts).toEqual([
      { cohort_month: '2026-01-01', customers: 2 },
      { cohort_month: '2026-02-01', customers: 0 },
    ]);
    expect(cohorts.rows).toEqual([
      { cohort_month: '2026-01-01', month_offset: 0, customers: 2, retention_pct: 100 },
      { cohort_month: '2026-01-01', month_offset: 1, customers: 1, retention_pct: 50 },
    ]);
    const funnel = await rpc.request(funnelRpc, { days: 60, as_of: asOf, ...without }, operator);
    expect(funnel.has_visits).toBe(true);
    expect(funnel.rows.filter((row) => row.visits + row.signups + row.first_paid > 0)).toEqual([
      { day: '2026-01-10', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-01-20', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-02-20', visits: 7, signups: 1, first_paid: 0 },
    ]);
    expect(funnel.top_paths).toEqual([{ path: '/', views: 7 }]);
  });

  it('a rebuild reads the streams from the start and goes live with the same figures', async () => {
    const before = { whole: await figures(), without: await figures(testCustomers) };
    const started = await rpc.request(rebuildProjectionRpc, {}, operator);
    // The answer is the status just after the rebuild's consumers started: a history this small
    // can be read and switched to before it is written (seen once the test databases stopped
    // waiting for the disk), so generation 3 is then already live rather than building.
    if (started.building) expect(started.building).toMatchObject({ generation: 3, status: 'building' });
    else expect(started.live?.generation).toBe(3);
    await eventually(
      async () => (await rpc.request(projectionStatusRpc, {}, operator)).live?.generation === 3,
      30_000,
      100,
    );
    await settled();
    expect({ whole: await figures(), without: await figures(testCustomers) }).toEqual(before);
  });
});

describe('test customers (issue #26): every figure with and without them', () => {
  it('the projection of definition 1 kept no customer’s share: refused, then rebuilt from history with the same whole figures', async () => {
    expect(refusedOnDefinitionOne).toMatchObject({ code: 'unavailable' });
    const status = await rpc.request(projectionStatusRpc, {}, operator);
    expect(status.live).toMatchObject({ definition: currentDefinition });
    expect(status.live!.generation).toBeGreaterThanOrEqual(2);
    expect(await figures()).toEqual(wholeOnDefinitionOne);
  });

  it('the whole figures count the test customers; without them, each differs by exactly their share', async () => {
    const whole = await figures();
    const real = await figures(testCustomers);
    // Revenue: Tess's 799 + 799 (300 refunded) and her organization's 1199.
    expect(whole.revenue).toMatchObject({ amount_cents: 5594, refunded_cents: 800, net_cents: 4794, invoices: 6 });
    expect(real.revenue).toMatchObject({ amount_cents: 2797, refunded_cents: 500, net_cents: 2297, invoices: 3 });
    expect(whole.monthly.rows).toEqual([
      { month_start: '2026-01-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 500 },
      { month_start: '2026-01-01', plan_code: 'personal', amount_cents: 1598, refunded_cents: 300 },
      { month_start: '2026-02-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 0 },
      { month_start: '2026-02-01', plan_code: 'personal', amount_cents: 1598, refunded_cents: 0 },
    ]);
    // Subscriptions: Tess's on Jan 12, the organization's from Feb 3 to Feb 25.
    expect([whole.newSubs.count, real.newSubs.count]).toEqual([4, 2]);
    expect([whole.cancels.count, real.cancels.count]).toEqual([2, 1]);
    expect(whole.daily.rows.filter((row) => row.new_subs + row.cancels > 0)).toEqual([
      { day: '2026-01-10', new_subs: 1, cancels: 0 },
      { day: '2026-01-12', new_subs: 1, cancels: 0 },
      { day: '2026-01-20', new_subs: 1, cancels: 0 },
      { day: '2026-02-03', new_subs: 1, cancels: 0 },
      { day: '2026-02-05', new_subs: 0, cancels: 1 },
      { day: '2026-02-25', new_subs: 0, cancels: 1 },
    ]);
    // MRR: Tess still pays 799; the organization came and went in February.
    expect(whole.mrr).toMatchObject({ mrr_total_cents: 1598, paying_customers: 2 });
    expect(real.mrr).toMatchObject({ mrr_total_cents: 799, paying_customers: 1 });
    // The last 30 days: Ann's and Tess's 799 and the organization's 1199.
    expect(whole.arpu).toMatchObject({ net_cents: 799 + 799 + 1199, paying_customers: 2, arpu_cents: 1399 });
    expect(real.arpu).toMatchObject({ net_cents: 799, paying_customers: 1, arpu_cents: 799 });
    const february = (rows: typeof whole.movements.rows) => rows.find((row) => row.month_start === '2026-02-01');
    expect(february(whole.movements.rows)).toMatchObject({
      new_cents: 1199,
      churn_cents: 2398,
      mrr_end_cents: 1598,
      new_customers: 1,
      churned_customers: 2,
    });
    expect(february(real.movements.rows)).toMatchObject({
      new_cents: 0,
      churn_cents: 1199,
      mrr_end_cents: 799,
      new_customers: 0,
      churned_customers: 1,
    });
    expect(real.churn.rows.find((row) => row.month_start === '2026-02-01')).toMatchObject({
      customers_at_start: 2,
      churned_customers: 1,
      churn_pct: 50,
    });
    expect(whole.churn.rows.find((row) => row.month_start === '2026-02-01')).toMatchObject({
      customers_at_start: 3,
      churned_customers: 2,
    });
    // Cohorts: Tess joins January's (and paid in February too), the organization makes February's.
    expect(whole.cohorts.cohorts).toEqual([
      { cohort_month: '2026-01-01', customers: 3 },
      { cohort_month: '2026-02-01', customers: 1 },
    ]);
    expect(whole.cohorts.rows.map((row) => [row.cohort_month, row.month_offset, row.customers])).toEqual([
      ['2026-01-01', 0, 3],
      ['2026-01-01', 1, 2],
      ['2026-02-01', 0, 1],
    ]);
    // The funnel: Tess's sign-up and first payment, the organization's first payment; the visits,
    // anonymous, are the same with or without.
    expect(whole.funnel.rows.filter((row) => row.visits + row.signups + row.first_paid > 0)).toEqual([
      { day: '2026-01-10', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-01-12', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-01-20', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-02-03', visits: 0, signups: 0, first_paid: 1 },
      { day: '2026-02-20', visits: 7, signups: 1, first_paid: 0 },
    ]);
    expect(real.funnel.top_paths).toEqual(whole.funnel.top_paths);
  });

  it('who is left out is decided when asked: unmarking the organization brings its share back at once', async () => {
    // Only Tess left out: her organization's counted again, with nothing replayed.
    const tessOnly = await figures([tess]);
    expect(tessOnly.revenue).toMatchObject({ amount_cents: 3996, refunded_cents: 500, invoices: 4 });
    expect(tessOnly.newSubs.count).toBe(3);
    expect(tessOnly.cohorts.cohorts).toEqual([
      { cohort_month: '2026-01-01', customers: 2 },
      { cohort_month: '2026-02-01', customers: 1 },
    ]);
    expect(
      (await rpc.request(mrrTotalsRpc, { as_of: '2026-02-04', exclude_customers: [tess] }, operator)).mrr_total_cents,
    ).toBe(1998 + 1199);
    // Leaving out nobody, or someone analytics never saw, is the whole.
    expect(await figures([randomUUID()])).toEqual(await figures());
  });
});

describe('analytics checks its callers itself', () => {
  it('refuses a signed-in caller who is not a platform admin, and an anonymous one, on reads and the rebuild', async () => {
    const customer = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
    const unverified = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: true, emailVerified: false });
    for (const caller of [customer, unverified]) {
      await expect(rpc.request(revenueWindowRpc, { days: 30 }, caller)).rejects.toMatchObject({ code: 'forbidden' });
      await expect(rpc.request(rebuildProjectionRpc, {}, caller)).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(rpc.request(mrrTotalsRpc, {})).rejects.toMatchObject({ code: 'not_signed_in' });
    expect((await rpc.request(projectionStatusRpc, {}, operator)).building).toBeNull();
  });

  it('refuses figures as of a day in the future with validation_failed', async () => {
    await expect(rpc.request(mrrTotalsRpc, { as_of: '2999-01-01' }, operator)).rejects.toMatchObject({
      code: 'validation_failed',
      message: 'as_of cannot be in the future.',
    });
  });
});
