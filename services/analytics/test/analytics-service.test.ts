import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billingEvents,
  cohortRetentionRpc,
  type EventContract,
  funnelRpc,
  identityEvents,
  invoicePaid,
  mrrTotalsRpc,
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
 */
const at = (day: string, time = '09:00') => `2026-${day}T${time}:00.000Z`;
const asOf = '2026-02-28';
const [ann, ben, cy] = [randomUUID(), randomUUID(), randomUUID()];
const [s1, s2] = [randomUUID(), randomUUID()];
const [i1, i2, i3] = [randomUUID(), randomUUID(), randomUUID()];

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

async function figures() {
  return {
    revenue: await rpc.request(revenueWindowRpc, { days: 60, as_of: asOf }, operator),
    mrr: await rpc.request(mrrTotalsRpc, { as_of: asOf }, operator),
    daily: await rpc.request(subscriptionsDailyRpc, { days: 60, as_of: asOf }, operator),
    monthly: await rpc.request(revenueMonthlyRpc, { months: 2, as_of: asOf }, operator),
    cohorts: await rpc.request(cohortRetentionRpc, { months: 2, as_of: asOf }, operator),
    funnel: await rpc.request(funnelRpc, { days: 60, as_of: asOf }, operator),
  };
}

beforeAll(async () => {
  // The streams analytics reads but does not own, as billing and identity declare them at their start.
  alone = await startServiceAlone('analytics-service', { billing: billingEvents, identity: identityEvents });
  await alone.launch(analyticsService({ checkEveryMs: 200, retiredGraceMs: 500 }));
  rpc = new RpcClient(await alone.connect('gateway'));
  // Every event twice: the second copy must change nothing.
  await publish(history, true);
  await settled();
}, 120_000);

afterAll(() => alone?.stop());

describe('analytics projects billing’s, identity’s and the gateway’s events', () => {
  it('revenue: invoices on the day paid, the refund on the day issued, each event once', async () => {
    expect(await rpc.request(revenueWindowRpc, { days: 60, as_of: asOf }, operator)).toEqual({
      days: 60,
      from: '2025-12-31',
      to: asOf,
      amount_cents: 2797,
      refunded_cents: 500,
      net_cents: 2297,
      invoices: 3,
    });
    const monthly = await rpc.request(revenueMonthlyRpc, { months: 2, as_of: asOf }, operator);
    expect(monthly.rows).toEqual([
      { month_start: '2026-01-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 500 },
      { month_start: '2026-01-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
      { month_start: '2026-02-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
    ]);
  });

  it('MRR and subscriptions: Ann counts from her payment, not her claim; Ben’s end is a cancel on its day', async () => {
    expect(await rpc.request(mrrTotalsRpc, { as_of: asOf }, operator)).toEqual({
      as_of: asOf,
      mrr_total_cents: 799,
      arr_total_cents: 9588,
      paying_customers: 1,
    });
    expect((await rpc.request(mrrTotalsRpc, { as_of: '2026-02-04' }, operator)).mrr_total_cents).toBe(1998);
    const daily = await rpc.request(subscriptionsDailyRpc, { days: 60, as_of: asOf }, operator);
    expect(daily.rows.filter((row) => row.new_subs + row.cancels > 0)).toEqual([
      { day: '2026-01-10', new_subs: 1, cancels: 0 },
      { day: '2026-01-20', new_subs: 1, cancels: 0 },
      { day: '2026-02-05', new_subs: 0, cancels: 1 },
    ]);
  });

  it('cohorts and the funnel: first payments, months paid, sign-ups and visits', async () => {
    const cohorts = await rpc.request(cohortRetentionRpc, { months: 2, as_of: asOf }, operator);
    expect(cohorts.cohorts).toEqual([
      { cohort_month: '2026-01-01', customers: 2 },
      { cohort_month: '2026-02-01', customers: 0 },
    ]);
    expect(cohorts.rows).toEqual([
      { cohort_month: '2026-01-01', month_offset: 0, customers: 2, retention_pct: 100 },
      { cohort_month: '2026-01-01', month_offset: 1, customers: 1, retention_pct: 50 },
    ]);
    const funnel = await rpc.request(funnelRpc, { days: 60, as_of: asOf }, operator);
    expect(funnel.has_visits).toBe(true);
    expect(funnel.rows.filter((row) => row.visits + row.signups + row.first_paid > 0)).toEqual([
      { day: '2026-01-10', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-01-20', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-02-20', visits: 7, signups: 1, first_paid: 0 },
    ]);
    expect(funnel.top_paths).toEqual([{ path: '/', views: 7 }]);
  });

  it('a rebuild reads the streams from the start and goes live with the same figures', async () => {
    const before = await figures();
    const started = await rpc.request(rebuildProjectionRpc, {}, operator);
    // The answer is the status just after the rebuild's consumers started: a history this small
    // can be read and switched to before it is written (seen once the test databases stopped
    // waiting for the disk), so generation 2 is then already live rather than building.
    if (started.building) expect(started.building).toMatchObject({ generation: 2, status: 'building' });
    else expect(started.live?.generation).toBe(2);
    await eventually(
      async () => (await rpc.request(projectionStatusRpc, {}, operator)).live?.generation === 2,
      30_000,
      100,
    );
    await settled();
    expect(await figures()).toEqual(before);
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
