import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  analyticsGenerationLimit,
  analyticsPageRequests,
  type EventContract,
  invoicePaid,
  refundIssued,
  subscriptionActivated,
  subscriptionCanceled,
  subscriptionUpdated,
  userRegistered,
  visitsCounted,
} from '@qw/contracts';
import { analyticsService, currentDefinition } from '@qw/analytics';
import { createEnvelope, type BusConnection } from '@qw/platform';
import { eventually, launchService } from '@qw/testkit';
import type { Static, TSchema } from 'typebox';
import { Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';

/**
 * The analytics service's figures against a small history written out by hand: the events billing,
 * identity and the gateway publish (their contracts), at the times given, and every figure of the
 * Analytics page worked out below from them. The figures are read as of 2026-03-31 through the
 * gateway as a platform admin.
 *
 * - Ann: Personal from Jan 10 (paid before she claimed it), renewed Feb 10 and Mar 10, upgraded to
 *   Gaming on Mar 20 (a proration invoice of 271).
 * - Ben: Gaming from Jan 31, renewed Feb 28 (across the month's end), set to cancel at the period's
 *   end on Mar 5, ended Mar 31.
 * - Dee's organization: Business 10 from Feb 1, renewed Mar 1.
 * - Cy: Personal on Feb 15, refunded in full and ended on Feb 18 (money back), back on Personal
 *   on Mar 25 with a new subscription (a reactivation).
 * - Eve signed up on Mar 30 and bought nothing. Visits on Mar 30 and 31.
 */
const asOf = '2026-03-31';
const at = (day: string, time = '09:00') => `2026-${day}T${time}:00.000Z`;

const ann = randomUUID();
const ben = randomUUID();
const cy = randomUUID();
const dee = randomUUID();
const eve = randomUUID();
const org = randomUUID();
const [s1, s2, s3, s3b, s4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const inv = Array.from({ length: 11 }, () => randomUUID());

type Published = { contract: EventContract; data: unknown; at: string };
const state = (
  subscriptionId: string,
  owner: { userId: string | null; orgId?: string | null },
  planCode: string,
  extra: Record<string, unknown>,
) => ({
  subscriptionId,
  userId: owner.userId,
  orgId: owner.orgId ?? null,
  planCode,
  status: 'active',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  ...extra,
});
const invoice = (
  invoiceId: string,
  subscriptionId: string,
  owner: { userId: string | null; orgId?: string | null },
  planCode: string,
  amountCents: number,
  paidAt: string,
) => ({
  invoiceId,
  subscriptionId,
  userId: owner.userId,
  orgId: owner.orgId ?? null,
  planCode,
  amountCents,
  currency: 'USD',
  periodStart: paidAt,
  periodEnd: paidAt,
  paidAt,
});
const nobody = { userId: null };

const billingHistory: Published[] = [
  // Jan 10: Ann pays, then claims.
  { contract: invoicePaid, data: invoice(inv[1]!, s1, nobody, 'personal', 799, at('01-10', '09:05')), at: at('01-10') },
  {
    contract: subscriptionActivated,
    data: state(s1, { userId: ann }, 'personal', {
      startedAt: at('01-10', '09:05'),
      effectiveAt: at('01-10', '09:10'),
      monthlyCents: 799,
    }),
    at: at('01-10', '09:10'),
  },
  // Jan 31: Ben.
  { contract: invoicePaid, data: invoice(inv[2]!, s2, nobody, 'gaming', 1199, at('01-31', '20:05')), at: at('01-31') },
  {
    contract: subscriptionActivated,
    data: state(s2, { userId: ben }, 'gaming', {
      startedAt: at('01-31', '20:05'),
      effectiveAt: at('01-31', '20:06'),
      monthlyCents: 1199,
    }),
    at: at('01-31', '20:06'),
  },
  // Feb 1: Dee's organization.
  {
    contract: invoicePaid,
    data: invoice(inv[3]!, s4, nobody, 'business10', 5000, at('02-01', '08:05')),
    at: at('02-01'),
  },
  {
    contract: subscriptionActivated,
    data: state(s4, { userId: dee, orgId: org }, 'business10', {
      startedAt: at('02-01', '08:05'),
      effectiveAt: at('02-01', '08:10'),
      monthlyCents: 5000,
    }),
    at: at('02-01', '08:10'),
  },
  {
    contract: invoicePaid,
    data: invoice(inv[4]!, s1, { userId: ann }, 'personal', 799, at('02-10', '09:05')),
    at: at('02-10'),
  },
  // Feb 15: Cy pays, claims; refunded and ended on Feb 18.
  { contract: invoicePaid, data: invoice(inv[5]!, s3, nobody, 'personal', 799, at('02-15', '12:05')), at: at('02-15') },
  {
    contract: subscriptionActivated,
    data: state(s3, { userId: cy }, 'personal', {
      startedAt: at('02-15', '12:05'),
      effectiveAt: at('02-15', '12:06'),
      monthlyCents: 799,
    }),
    at: at('02-15', '12:06'),
  },
  {
    contract: refundIssued,
    data: {
      refundId: randomUUID(),
      invoiceId: inv[5]!,
      subscriptionId: s3,
      userId: cy,
      orgId: null,
      amountCents: 799,
      issuedAt: at('02-18'),
    },
    at: at('02-18'),
  },
  {
    contract: subscriptionCanceled,
    data: {
      ...state(s3, { userId: cy }, 'personal', { effectiveAt: at('02-18'), monthlyCents: 799 }),
      status: 'canceled',
      canceledAt: at('02-18'),
    },
    at: at('02-18'),
  },
  {
    contract: invoicePaid,
    data: invoice(inv[6]!, s2, { userId: ben }, 'gaming', 1199, at('02-28', '20:05')),
    at: at('02-28'),
  },
  {
    contract: invoicePaid,
    data: invoice(inv[7]!, s4, { userId: dee, orgId: org }, 'business10', 5000, at('03-01', '08:05')),
    at: at('03-01'),
  },
  {
    contract: subscriptionUpdated,
    data: state(s2, { userId: ben }, 'gaming', {
      cancelAtPeriodEnd: true,
      effectiveAt: at('03-05', '10:00'),
      monthlyCents: 1199,
    }),
    at: at('03-05', '10:00'),
  },
  {
    contract: invoicePaid,
    data: invoice(inv[8]!, s1, { userId: ann }, 'personal', 799, at('03-10', '09:05')),
    at: at('03-10'),
  },
  // Mar 20: Ann upgrades; the proration is invoiced at once.
  {
    contract: invoicePaid,
    data: invoice(inv[9]!, s1, { userId: ann }, 'gaming', 271, at('03-20', '12:00')),
    at: at('03-20', '12:00'),
  },
  {
    contract: subscriptionUpdated,
    data: state(s1, { userId: ann }, 'gaming', { effectiveAt: at('03-20', '12:00'), monthlyCents: 1199 }),
    at: at('03-20', '12:00'),
  },
  // Mar 25: Cy is back.
  {
    contract: invoicePaid,
    data: invoice(inv[10]!, s3b, nobody, 'personal', 799, at('03-25', '15:00')),
    at: at('03-25', '15:00'),
  },
  {
    contract: subscriptionActivated,
    data: state(s3b, { userId: cy }, 'personal', {
      startedAt: at('03-25', '15:00'),
      effectiveAt: at('03-25', '15:01'),
      monthlyCents: 799,
    }),
    at: at('03-25', '15:01'),
  },
  // Mar 31: Ben's period ends.
  {
    contract: subscriptionCanceled,
    data: {
      ...state(s2, { userId: ben }, 'gaming', { effectiveAt: at('03-31', '20:05'), monthlyCents: 1199 }),
      status: 'canceled',
      canceledAt: at('03-31', '20:05'),
    },
    at: at('03-31', '20:05'),
  },
];

const identityHistory: Published[] = [
  [ann, '01-10'],
  [ben, '01-31'],
  [dee, '02-01'],
  [cy, '02-15'],
  [eve, '03-30'],
].map(([userId, day]) => ({
  contract: userRegistered,
  data: { userId, accountType: 'personal', registeredAt: at(day!, '08:00') },
  at: at(day!, '08:00'),
}));

const visitHistory: Published[] = [
  { day: '2026-03-30', path: '/', views: 6 },
  { day: '2026-03-30', path: '/', views: 4 },
  { day: '2026-03-30', path: '/pricing', views: 4 },
  { day: '2026-03-31', path: '/', views: 6 },
].map((data) => ({ contract: visitsCounted, data, at: `${data.day}T12:00:00.000Z` }));

/** What the history above gives, worked out by hand. */
const expected = {
  revenue: {
    1: { amount_cents: 0, refunded_cents: 0, net_cents: 0, invoices: 0, from: '2026-03-31' },
    // Mar 25: Cy's 799.
    7: { amount_cents: 799, refunded_cents: 0, net_cents: 799, invoices: 1, from: '2026-03-25' },
    // Mar 2 to 31: Ann's 799 and 271, Cy's 799 (the organization's Mar 1 renewal is a day too early).
    30: { amount_cents: 1869, refunded_cents: 0, net_cents: 1869, invoices: 3, from: '2026-03-02' },
    // Jan 31 to Mar 31: everything but Ann's first 799; Cy's refund on Feb 18.
    60: { amount_cents: 15865, refunded_cents: 799, net_cents: 15066, invoices: 9, from: '2026-01-31' },
    90: { amount_cents: 16664, refunded_cents: 799, net_cents: 15865, invoices: 10, from: '2026-01-01' },
    730: { amount_cents: 16664, refunded_cents: 799, net_cents: 15865, invoices: 10, from: '2024-04-01' },
  },
  // New: Ann Jan 10, Ben Jan 31, the organization Feb 1, Cy Feb 15 and Mar 25. Cancels: Cy Feb 18, Ben Mar 31.
  newSubscriptions: { 1: 0, 7: 1, 30: 1, 60: 4 },
  cancels: { 7: 1, 30: 1 },
  // Ann on Gaming 1199, the organization 5000, Cy 799.
  mrr: { as_of: asOf, mrr_total_cents: 6998, arr_total_cents: 83976, paying_customers: 3 },
  // 1869 over the 3 paying at the end: 623.
  arpu: { arpu_cents: 623, net_cents: 1869, paying_customers: 3 },
};

let stack: Stack;
let admin: Client;
let customer: Client;
let owner: Client;
let bus: BusConnection;

async function publish(events: Published[], again = false): Promise<void> {
  for (const event of events) {
    const envelope = createEnvelope(
      event.contract as EventContract<TSchema>,
      event.data as Static<TSchema>,
      new Date(event.at),
    );
    await bus.js.publish(bus.ns.subject(event.contract.subject), JSON.stringify(envelope), { msgID: envelope.id });
    // The same event delivered a second time (a producer's retry after a lost acknowledgement).
    if (again)
      await bus.js.publish(bus.ns.subject(event.contract.subject), JSON.stringify(envelope), {
        msgID: `${envelope.id}-again`,
      });
  }
}

const figure = async (client: Client, path: string) => {
  const answer = await client.call('GET', `/api/admin/analytics/${path}`);
  if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.statusCode} ${answer.body}`);
  return answer.data;
};

/** Every figure of the page as of the history's end, for comparing one projection with another. */
async function allFigures(client: Client) {
  const paths = [
    ...[1, 7, 30, 60, 90, 182, 365, 730].map((d) => `revenue-window?days=${d}&as_of=${asOf}`),
    ...[1, 7, 30, 60].map((d) => `new-subscriptions-window?days=${d}&as_of=${asOf}`),
    ...[7, 30].map((d) => `cancels-window?days=${d}&as_of=${asOf}`),
    `mrr?as_of=${asOf}`,
    `arpu?days=30&as_of=${asOf}`,
    `revenue-daily?days=90&as_of=${asOf}`,
    `subscriptions-daily?days=90&as_of=${asOf}`,
    `revenue-monthly?months=12&as_of=${asOf}`,
    `mrr-movements?months=12&as_of=${asOf}`,
    `cohorts?months=12&as_of=${asOf}`,
    `churn?months=12&as_of=${asOf}`,
    `funnel?days=60&as_of=${asOf}`,
  ];
  const out: Record<string, unknown> = {};
  for (const path of paths) out[path] = await figure(client, path);
  return out;
}

async function settled(client: Client): Promise<void> {
  await eventually(
    async () => {
      const status = await figure(client, 'projection');
      return status.building === null && status.live?.pending_events === 0;
    },
    30_000,
    100,
  );
}

beforeAll(async () => {
  stack = await startStack({
    label: 'analytics',
    adminEmails: ['ops@quietwire.test'],
    gatewayEnv: { VISITS_FLUSH_MS: '200' },
    extra: (url, mail) => [...deviceServices(url, mail), analyticsService({ checkEveryMs: 200, retiredGraceMs: 500 })],
  });
  bus = await stack.connectAdmin();
  admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.7');
  customer = await customerWithPlan(stack, 'pia@example.com');
  owner = await customerWithPlan(stack, 'owen@example.com', 'business10');
  await publish(identityHistory);
  await publish(visitHistory);
  // Every billing event twice: the second copy must change nothing.
  await publish(billingHistory, true);
  await settled(admin);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('analytics figures from a hand-computed history', () => {
  it('revenue windows: paid invoices, refunds on the day they were issued, and net', async () => {
    for (const [days, want] of Object.entries(expected.revenue)) {
      const got = await figure(admin, `revenue-window?days=${days}&as_of=${asOf}`);
      expect(got, `${days} days`).toEqual({ days: Number(days), to: asOf, ...want });
    }
  });

  it('new subscriptions and cancels in their windows', async () => {
    for (const [days, count] of Object.entries(expected.newSubscriptions)) {
      const got = await figure(admin, `new-subscriptions-window?days=${days}&as_of=${asOf}`);
      expect(got.count, `new, ${days} days`).toBe(count);
    }
    for (const [days, count] of Object.entries(expected.cancels)) {
      const got = await figure(admin, `cancels-window?days=${days}&as_of=${asOf}`);
      expect(got.count, `cancels, ${days} days`).toBe(count);
    }
  });

  it('MRR, ARR and ARPU', async () => {
    expect(await figure(admin, `mrr?as_of=${asOf}`)).toEqual(expected.mrr);
    expect(await figure(admin, `arpu?days=30&as_of=${asOf}`)).toEqual({
      days: 30,
      from: '2026-03-02',
      to: asOf,
      ...expected.arpu,
    });
    // Before Ben's end: Ann 1199 (upgraded Mar 20), Ben 1199, the organization 5000, Cy 799 (back on Mar 25).
    expect((await figure(admin, 'mrr?as_of=2026-03-25')).mrr_total_cents).toBe(8197);
    // And the day before Cy came back and Ann upgraded: 799 + 1199 + 5000.
    expect((await figure(admin, 'mrr?as_of=2026-03-19')).mrr_total_cents).toBe(6998);
  });

  it('daily revenue and subscriptions: a row per day, zeros included', async () => {
    const revenue = await figure(admin, `revenue-daily?days=60&as_of=${asOf}`);
    expect(revenue.rows).toHaveLength(60);
    expect(revenue.rows[0].day).toBe('2026-01-31');
    const day = (d: string) => revenue.rows.find((row: { day: string }) => row.day === d);
    expect(day('2026-02-18')).toEqual({ day: '2026-02-18', amount_cents: 0, refunded_cents: 799, net_cents: -799 });
    expect(day('2026-02-28')).toEqual({ day: '2026-02-28', amount_cents: 1199, refunded_cents: 0, net_cents: 1199 });
    expect(day('2026-03-20')).toEqual({ day: '2026-03-20', amount_cents: 271, refunded_cents: 0, net_cents: 271 });
    expect(revenue.rows.reduce((sum: number, row: { net_cents: number }) => sum + row.net_cents, 0)).toBe(15066);

    const subs = await figure(admin, `subscriptions-daily?days=60&as_of=${asOf}`);
    const busy = subs.rows.filter((row: { new_subs: number; cancels: number }) => row.new_subs + row.cancels > 0);
    expect(busy).toEqual([
      { day: '2026-01-31', new_subs: 1, cancels: 0 },
      { day: '2026-02-01', new_subs: 1, cancels: 0 },
      { day: '2026-02-15', new_subs: 1, cancels: 0 },
      { day: '2026-02-18', new_subs: 0, cancels: 1 },
      { day: '2026-03-25', new_subs: 1, cancels: 0 },
      { day: '2026-03-31', new_subs: 0, cancels: 1 },
    ]);
  });

  it('revenue by month and plan, refunds in the month they were issued', async () => {
    const monthly = await figure(admin, `revenue-monthly?months=3&as_of=${asOf}`);
    expect(monthly).toEqual({
      from: '2026-01-01',
      to: asOf,
      rows: [
        { month_start: '2026-01-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 0 },
        { month_start: '2026-01-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
        { month_start: '2026-02-01', plan_code: 'business10', amount_cents: 5000, refunded_cents: 0 },
        { month_start: '2026-02-01', plan_code: 'gaming', amount_cents: 1199, refunded_cents: 0 },
        { month_start: '2026-02-01', plan_code: 'personal', amount_cents: 1598, refunded_cents: 799 },
        { month_start: '2026-03-01', plan_code: 'business10', amount_cents: 5000, refunded_cents: 0 },
        { month_start: '2026-03-01', plan_code: 'gaming', amount_cents: 271, refunded_cents: 0 },
        { month_start: '2026-03-01', plan_code: 'personal', amount_cents: 1598, refunded_cents: 0 },
      ],
    });
  });

  it('MRR movements per month: new, expansion, churn, reactivation and MRR at the end', async () => {
    const moves = await figure(admin, `mrr-movements?months=3&as_of=${asOf}`);
    const zero = { expansion_cents: 0, contraction_cents: 0, churn_cents: 0, reactivation_cents: 0 };
    expect(moves.rows).toEqual([
      {
        month_start: '2026-01-01',
        ...zero,
        new_cents: 1998,
        net_cents: 1998,
        mrr_end_cents: 1998,
        new_customers: 2,
        reactivated_customers: 0,
        churned_customers: 0,
      },
      {
        month_start: '2026-02-01',
        ...zero,
        new_cents: 5799,
        churn_cents: 799,
        net_cents: 5000,
        mrr_end_cents: 6998,
        new_customers: 2,
        reactivated_customers: 0,
        churned_customers: 1,
      },
      {
        month_start: '2026-03-01',
        ...zero,
        new_cents: 0,
        expansion_cents: 400,
        reactivation_cents: 799,
        churn_cents: 1199,
        net_cents: 0,
        mrr_end_cents: 6998,
        new_customers: 0,
        reactivated_customers: 1,
        churned_customers: 1,
      },
    ]);
  });

  it('churn per month: customers lost over those paying at its start, and MRR lost', async () => {
    const churn = await figure(admin, `churn?months=3&as_of=${asOf}`);
    expect(churn.rows).toEqual([
      {
        month_start: '2026-01-01',
        churn_pct: null,
        revenue_churn_pct: null,
        customers_at_start: 0,
        churned_customers: 0,
        mrr_at_start_cents: 0,
        churned_cents: 0,
        contraction_cents: 0,
      },
      {
        // Cy left (1 of the 2 paying on Feb 1); 799 of 1998.
        month_start: '2026-02-01',
        churn_pct: 50,
        revenue_churn_pct: 40,
        customers_at_start: 2,
        churned_customers: 1,
        mrr_at_start_cents: 1998,
        churned_cents: 799,
        contraction_cents: 0,
      },
      {
        // Ben left (1 of 3); 1199 of 6998.
        month_start: '2026-03-01',
        churn_pct: 33.3,
        revenue_churn_pct: 17.1,
        customers_at_start: 3,
        churned_customers: 1,
        mrr_at_start_cents: 6998,
        churned_cents: 1199,
        contraction_cents: 0,
      },
    ]);
  });

  it('cohorts: the month of the first payment, and who paid in each month after', async () => {
    const cohorts = await figure(admin, `cohorts?months=3&as_of=${asOf}`);
    expect(cohorts.cohorts).toEqual([
      { cohort_month: '2026-01-01', customers: 2 },
      { cohort_month: '2026-02-01', customers: 2 },
      { cohort_month: '2026-03-01', customers: 0 },
    ]);
    expect(cohorts.rows).toEqual([
      // Ann and Ben; both paid in February; only Ann in March (Ben's period ran to Mar 31 unpaid again).
      { cohort_month: '2026-01-01', month_offset: 0, customers: 2, retention_pct: 100 },
      { cohort_month: '2026-01-01', month_offset: 1, customers: 2, retention_pct: 100 },
      { cohort_month: '2026-01-01', month_offset: 2, customers: 1, retention_pct: 50 },
      // The organization and Cy (refunded, but back and paying in March).
      { cohort_month: '2026-02-01', month_offset: 0, customers: 2, retention_pct: 100 },
      { cohort_month: '2026-02-01', month_offset: 1, customers: 2, retention_pct: 100 },
    ]);
  });

  it('funnel: visits, sign-ups and first payments per day, and the pages visited most', async () => {
    const funnel = await figure(admin, `funnel?days=60&as_of=${asOf}`);
    expect(funnel.has_visits).toBe(true);
    expect(funnel.rows).toHaveLength(60);
    const busy = funnel.rows.filter(
      (row: { visits: number; signups: number; first_paid: number }) => row.visits + row.signups + row.first_paid > 0,
    );
    expect(busy).toEqual([
      { day: '2026-01-31', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-02-01', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-02-15', visits: 0, signups: 1, first_paid: 1 },
      { day: '2026-03-30', visits: 14, signups: 1, first_paid: 0 },
      { day: '2026-03-31', visits: 6, signups: 0, first_paid: 0 },
    ]);
    expect(funnel.top_paths).toEqual([
      { path: '/', views: 16 },
      { path: '/pricing', views: 4 },
    ]);
  });

  it('refuses a window the page does not offer, and a day in the future', async () => {
    const odd = await admin.call('GET', '/api/admin/analytics/revenue-window?days=14');
    expect(odd.statusCode).toBe(400);
    expect(odd.data.error.code).toBe('validation_failed');
    const future = await admin.call('GET', '/api/admin/analytics/mrr?as_of=2999-01-01');
    expect(future.statusCode).toBe(400);
    expect(future.data.error.message).toBe('as_of cannot be in the future.');
  });
});

describe('visits of the public pages', () => {
  it('are counted per day and path, with nothing about the visitor, and reach the funnel', async () => {
    const visitor = new Client(stack.app, '192.0.2.44');
    for (const path of ['/pricing', '/pricing', '/', '/pricing']) {
      const answer = await visitor.call('POST', '/api/visits', { path });
      expect(answer.statusCode).toBe(204);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    const today = new Date().toISOString().slice(0, 10);
    const funnel = await eventually(
      async () => {
        const answer = await figure(admin, 'funnel?days=1');
        // Each (day, path) count is its own event: wait until both paths' counts have arrived.
        const pricing = answer.top_paths.find((p: { path: string }) => p.path === '/pricing');
        const home = answer.top_paths.find((p: { path: string }) => p.path === '/');
        return pricing?.views === 3 && home?.views === 1 ? answer : undefined;
      },
      15_000,
      100,
    );
    expect(funnel.rows).toEqual([expect.objectContaining({ day: today, visits: 4 })]);
    // What travelled: day, path and a count, nothing else.
    const stream = await bus.jsm.streams.info(bus.ns.stream('gateway'));
    const last = await bus.jsm.streams.getMessage(bus.ns.stream('gateway'), { seq: stream.state.last_seq });
    expect(Object.keys(JSON.parse(new TextDecoder().decode(last!.data)).data).sort()).toEqual(['day', 'path', 'views']);
  });

  it('refuses paths that are not public pages, and a visitor counting too fast', async () => {
    const visitor = new Client(stack.app, '192.0.2.45');
    for (const path of ['/app/personal/overview', '/admin', 'https://elsewhere.example/', '']) {
      const answer = await visitor.call('POST', '/api/visits', { path });
      expect(answer.statusCode, path).toBe(400);
      expect(answer.data.error.code).toBe('validation_failed');
    }
    const burst = new Client(stack.app, '192.0.2.46');
    // 60 a minute; a burst that straddles a minute's end may get up to twice that through.
    const statuses: number[] = [];
    while (statuses.length < 121 && statuses.at(-1) !== 429)
      statuses.push((await burst.call('POST', '/api/visits', { path: '/faq' })).statusCode);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 204)).toBe(true);
    expect(statuses.length - 1).toBeGreaterThanOrEqual(60);
  });
});

describe('analytics is for platform admins only', () => {
  const routes = analyticsPageRequests;

  it('refuses anonymous callers, customers and business owners on every read and the rebuild', async () => {
    const anonymous = new Client(stack.app);
    for (const path of routes) {
      const url = `/api/admin/analytics/${path}`;
      expect((await anonymous.call('GET', url)).statusCode, url).toBe(401);
      for (const [who, client] of [
        ['customer', customer],
        ['business owner', owner],
      ] as const) {
        const answer = await client.call('GET', url);
        expect(answer.statusCode, `${who} ${url}`).toBe(403);
        expect(answer.data.error.code).toBe('forbidden');
      }
    }
    for (const client of [anonymous, customer, owner])
      expect([401, 403]).toContain((await client.call('POST', '/api/admin/analytics/rebuild')).statusCode);
  });

  it('the service checks again: a caller assertion without the admin flag is refused by analytics itself', async () => {
    const { revenueWindowRpc } = await import('@qw/contracts');
    const { callerTokenSigner, RpcClient } = await import('@qw/platform');
    const { testCallerKeys } = await import('@qw/testkit');
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    const rpc = new RpcClient(stack.bus);
    const caller = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
    await expect(rpc.request(revenueWindowRpc, { days: 30 }, caller)).rejects.toMatchObject({ code: 'forbidden' });
  });
});

describe('analytics projections are rebuilt from history', () => {
  it('a rebuild from the streams gives the same figures, and switches without a gap', async () => {
    const before = await allFigures(admin);
    const started = await admin.call('POST', '/api/admin/analytics/rebuild');
    expect(started.statusCode).toBe(202);
    expect(started.data.building).toMatchObject({ generation: 2, status: 'building' });
    const again = await admin.call('POST', '/api/admin/analytics/rebuild');
    // Either still under way (409) or already switched and a third one started: never two at once.
    if (again.statusCode === 409) expect(again.data.error.code).toBe('conflict');
    await settled(admin);
    const status = await figure(admin, 'projection');
    expect(status.live.generation).toBeGreaterThanOrEqual(2);
    expect(await allFigures(admin)).toEqual(before);
    // The first generation is gone once its grace is over: its tables, and its consumers (idle).
    const analytics = stack.services.analytics!;
    await eventually(
      async () => {
        const { rows } = await sql<{ n: string }>`
          select count(*) as n from information_schema.tables
          where table_schema = 'analytics' and table_name like 'g1\_%'`.execute(analytics.db);
        return Number(rows[0]?.n) === 0;
      },
      15_000,
      200,
    );
    await eventually(
      async () => {
        try {
          await bus.jsm.consumers.info(bus.ns.stream('billing'), 'analytics_g1_billing');
          return false;
        } catch {
          return true;
        }
      },
      15_000,
      200,
    );
  });

  it('a newer definition in the code is built beside the live one on restart, then goes live', async () => {
    const before = await allFigures(admin);
    await stack.services.analytics!.stop();
    stack.services.analytics = await launchService(
      analyticsService({ checkEveryMs: 200, retiredGraceMs: 500, definition: currentDefinition + 1 }),
      { database: stack.database, bus: stack.testBus },
    );
    // While it builds, the figures still come from the live generation.
    expect(await figure(admin, `mrr?as_of=${asOf}`)).toEqual(expected.mrr);
    await eventually(
      async () => (await figure(admin, 'projection')).live?.definition === currentDefinition + 1,
      30_000,
      100,
    );
    await settled(admin);
    expect(await allFigures(admin)).toEqual(before);
  });

  it('refuses a rebuild past the generations whose consumers the bus lets analytics read, and starts none', async () => {
    await settled(admin);
    const analytics = stack.services.analytics!;
    // The generations made so far, as if analytics had been rebuilt up to the limit.
    await sql`select setval(pg_get_serial_sequence('generations', 'generation'), ${analyticsGenerationLimit})`.execute(
      analytics.db,
    );
    const refused = await admin.call('POST', '/api/admin/analytics/rebuild');
    expect(refused.statusCode).toBe(409);
    expect(refused.data.error.message).toMatch(/analyticsGenerationLimit/);
    expect((await figure(admin, 'projection')).building).toBeNull();
  });
});
