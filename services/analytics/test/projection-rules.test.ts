import { describe, expect, it } from 'vitest';
import { attributePayment } from '../src/projection/cohort-rules.ts';
import { ProjectionBatch } from '../src/projection/projection-batch.ts';
import type {
  CustomerRow,
  InvoiceRow,
  ProjectionEvent,
  ProjectionStore,
  SubscriptionRow,
} from '../src/projection/rows.ts';

describe('attributePayment: what a payment does to its customer’s cohort', () => {
  const none = { cohort_month: null, first_paid_day: null };
  it('a first payment makes the cohort of its month, counts month +0 and a first payment that day', () => {
    expect(attributePayment(none, new Set(), '2026-01-10')).toEqual({
      customer: { cohort_month: '2026-01-01', first_paid_day: '2026-01-10' },
      newMonth: '2026-01-01',
      changed: true,
      funnel: [{ day: '2026-01-10', first_paid: 1 }],
      cells: [{ cohort: '2026-01-01', offset: 0, customers: 1 }],
    });
  });
  it('a later month counts once, at its offset; a second payment in a month counts nothing', () => {
    const customer = { cohort_month: '2026-01-01', first_paid_day: '2026-01-10' };
    expect(attributePayment(customer, new Set(['2026-01-01']), '2026-03-10')).toMatchObject({
      newMonth: '2026-03-01',
      funnel: [],
      cells: [{ cohort: '2026-01-01', offset: 2, customers: 1 }],
    });
    expect(attributePayment(customer, new Set(['2026-01-01', '2026-03-01']), '2026-03-20')).toEqual({
      customer,
      newMonth: null,
      changed: false,
      funnel: [],
      cells: [],
    });
  });
  it('an earlier payment learnt late moves the customer, and every month it paid in, to the earlier cohort', () => {
    const customer = { cohort_month: '2026-02-01', first_paid_day: '2026-02-05' };
    const result = attributePayment(customer, new Set(['2026-02-01', '2026-03-01']), '2026-01-20');
    expect(result.customer).toEqual({ cohort_month: '2026-01-01', first_paid_day: '2026-01-20' });
    expect(result.newMonth).toBe('2026-01-01');
    expect(result.funnel).toEqual([
      { day: '2026-02-05', first_paid: -1 },
      { day: '2026-01-20', first_paid: 1 },
    ]);
    expect(result.cells).toEqual(
      expect.arrayContaining([
        { cohort: '2026-02-01', offset: 0, customers: -1 },
        { cohort: '2026-01-01', offset: 1, customers: 1 },
        { cohort: '2026-02-01', offset: 1, customers: -1 },
        { cohort: '2026-01-01', offset: 2, customers: 1 },
        { cohort: '2026-01-01', offset: 0, customers: 1 },
      ]),
    );
    expect(result.cells).toHaveLength(5);
    expect(customer).toEqual({ cohort_month: '2026-02-01', first_paid_day: '2026-02-05' });
  });
  it('an earlier day in a month already paid moves only the first payment', () => {
    const customer = { cohort_month: '2026-01-01', first_paid_day: '2026-01-20' };
    expect(attributePayment(customer, new Set(['2026-01-01']), '2026-01-05')).toEqual({
      customer: { cohort_month: '2026-01-01', first_paid_day: '2026-01-05' },
      newMonth: null,
      changed: true,
      funnel: [
        { day: '2026-01-20', first_paid: -1 },
        { day: '2026-01-05', first_paid: 1 },
      ],
      cells: [],
    });
  });
});

/** The rows a batch reads, kept in memory: the rules run without a database. */
function memoryStore(
  rows: { subscriptions?: SubscriptionRow[]; customers?: CustomerRow[]; invoices?: InvoiceRow[] } = {},
): ProjectionStore {
  const subscriptions = rows.subscriptions ?? [];
  const customers = rows.customers ?? [];
  const invoices = rows.invoices ?? [];
  return {
    subscriptions: async (ids) => subscriptions.filter((row) => ids.includes(row.subscription_id)),
    customers: async (keys) => customers.filter((row) => keys.includes(row.customer_key)),
    customerMonths: async () => [],
    invoices: async (ids) => invoices.filter((row) => ids.includes(row.invoice_id)),
    unattributedInvoices: async (ids) =>
      invoices.filter((row) => row.customer_key === null && ids.includes(row.subscription_id ?? '')),
  };
}

async function project(events: ProjectionEvent[], store = memoryStore()) {
  const batch = new ProjectionBatch(store);
  await batch.prefetch(events);
  for (const event of events) await batch.apply(event);
  return batch.changes();
}

const sub = (
  state: Partial<Extract<ProjectionEvent, { kind: 'subscription' }>['state']>,
  occurredAt: string,
  canceledAt?: string,
): ProjectionEvent => ({
  kind: 'subscription',
  occurredAt,
  canceledAt,
  state: { subscriptionId: 's1', userId: 'ann', orgId: null, planCode: 'personal', status: 'active', ...state },
});
const paid = (invoiceId: string, owner: string | null, paidAt: string, amountCents = 799): ProjectionEvent => ({
  kind: 'invoice',
  invoiceId,
  subscriptionId: 's1',
  owner,
  planCode: 'personal',
  amountCents,
  paidAt,
});

describe('ProjectionBatch: events to rows and counters', () => {
  it('a purchase paid before its claim counts from its start: new subscription, new MRR, cohort, first payment', async () => {
    const changes = await project([
      paid('i1', null, '2026-01-10T09:05:00Z'),
      sub({ startedAt: '2026-01-10T09:05:00Z', monthlyCents: 799 }, '2026-01-11T10:00:00Z'),
    ]);
    expect(changes.invoices).toEqual([
      expect.objectContaining({ invoice_id: 'i1', customer_key: 'ann', paid_day: '2026-01-10' }),
    ]);
    expect(changes.customers).toEqual([
      {
        customer_key: 'ann',
        mrr_cents: 799,
        ever_subscribed: true,
        first_paid_day: '2026-01-10',
        cohort_month: '2026-01-01',
      },
    ]);
    expect(changes.customerMonths).toEqual([{ customer_key: 'ann', month: '2026-01-01' }]);
    expect(Object.fromEntries(changes.counters.subscriptions_daily)).toEqual({
      '2026-01-10': { new_subs: 1, cancels: 0 },
    });
    expect(changes.counters.mrr_daily.get('2026-01-10')).toMatchObject({ new_cents: 799, new_customers: 1 });
    expect(changes.counters.revenue_daily.get('2026-01-10')).toEqual({
      amount_cents: 799,
      refunded_cents: 0,
      invoices: 1,
    });
    expect(changes.counters.funnel_daily.get('2026-01-10')).toEqual({ signups: 0, first_paid: 1 });
    expect(changes.counters.cohort_cells.get('2026-01-01|0')).toEqual({
      cohort_month: '2026-01-01',
      month_offset: 0,
      customers: 1,
    });
  });

  it('an upgrade is expansion; the end is churn and a cancel on its day', async () => {
    const changes = await project([
      sub({ startedAt: '2026-01-10T09:00:00Z', monthlyCents: 799 }, '2026-01-10T09:00:00Z'),
      sub({ planCode: 'gaming', monthlyCents: 1199, effectiveAt: '2026-02-20T12:00:00Z' }, '2026-02-20T12:00:00Z'),
      sub(
        { planCode: 'gaming', monthlyCents: 1199, status: 'canceled', effectiveAt: '2026-03-31T20:00:00Z' },
        '2026-03-31T20:00:00Z',
        '2026-03-31T20:00:00Z',
      ),
    ]);
    expect(changes.counters.mrr_daily.get('2026-02-20')).toMatchObject({ expansion_cents: 400 });
    expect(changes.counters.mrr_daily.get('2026-03-31')).toMatchObject({ churn_cents: 1199, churned_customers: 1 });
    expect(changes.counters.subscriptions_daily.get('2026-03-31')).toEqual({ new_subs: 0, cancels: 1 });
    expect(changes.subscriptions[0]).toMatchObject({
      mrr_cents: 0,
      status: 'canceled',
      canceled_day: '2026-03-31',
      new_day: '2026-01-10',
    });
    // The same movements in the customer's own share.
    const own = (day: string) => changes.counters.customer_mrr_daily.get(`ann|${day}`);
    expect(own('2026-01-10')).toMatchObject({ customer_key: 'ann', new_cents: 799, new_customers: 1 });
    expect(own('2026-02-20')).toMatchObject({ expansion_cents: 400 });
    expect(own('2026-03-31')).toMatchObject({ churn_cents: 1199, churned_customers: 1 });
    expect(changes.counters.customer_mrr_daily.size).toBe(changes.counters.mrr_daily.size);
  });

  it('an older state arriving late changes nothing', async () => {
    const known: SubscriptionRow = {
      subscription_id: 's1',
      customer_key: 'ann',
      plan_code: 'gaming',
      monthly_cents: 1199,
      status: 'active',
      mrr_cents: 1199,
      counted_new: true,
      canceled_day: null,
      new_day: '2026-03-01',
      last_effective_at: '2026-03-20T12:00:00.000Z',
    };
    const changes = await project(
      [sub({ monthlyCents: 799, effectiveAt: '2026-03-01T00:00:00Z' }, '2026-03-01T00:00:00Z')],
      memoryStore({ subscriptions: [{ ...known }] }),
    );
    expect(changes.subscriptions).toEqual([]);
    expect(changes.counters.mrr_daily.size).toBe(0);
  });

  it('an invoice already projected counts once; a refund counts under the invoice’s plan, or unknown', async () => {
    const invoice: InvoiceRow = {
      invoice_id: 'i1',
      subscription_id: 's1',
      customer_key: 'ann',
      plan_code: 'gaming',
      amount_cents: 1199,
      paid_day: '2026-02-01',
    };
    const changes = await project(
      [
        paid('i1', 'ann', '2026-02-01T08:00:00Z', 1199),
        { kind: 'refund', refundId: 'r1', invoiceId: 'i1', amountCents: 500, issuedAt: '2026-02-03T10:00:00Z' },
        { kind: 'refund', refundId: 'r2', invoiceId: 'gone', amountCents: 100, issuedAt: '2026-02-03T11:00:00Z' },
      ],
      memoryStore({ invoices: [invoice] }),
    );
    expect(changes.invoices).toEqual([]);
    expect(changes.counters.revenue_daily.get('2026-02-01')).toBeUndefined();
    expect(changes.counters.revenue_daily.get('2026-02-03')).toEqual({
      amount_cents: 0,
      refunded_cents: 600,
      invoices: 0,
    });
    expect(Object.fromEntries(changes.counters.revenue_monthly_plan)).toEqual({
      '2026-02-01|gaming': { month: '2026-02-01', plan_code: 'gaming', amount_cents: 0, refunded_cents: 500 },
      '2026-02-01|unknown': { month: '2026-02-01', plan_code: 'unknown', amount_cents: 0, refunded_cents: 100 },
    });
    // Each refund kept with its invoice, so a customer's share can be told from the totals.
    expect(changes.refunds).toEqual([
      { refund_id: 'r1', invoice_id: 'i1', plan_code: 'gaming', amount_cents: 500, day: '2026-02-03' },
      { refund_id: 'r2', invoice_id: 'gone', plan_code: 'unknown', amount_cents: 100, day: '2026-02-03' },
    ]);
  });

  it('sign-ups and visits are counts of their day', async () => {
    const changes = await project([
      { kind: 'signup', userId: 'u1', registeredAt: '2026-03-30T23:59:00Z' },
      { kind: 'signup', userId: 'u2', registeredAt: '2026-03-31T00:01:00Z' },
      { kind: 'visits', day: '2026-03-30', path: '/', views: 6 },
      { kind: 'visits', day: '2026-03-30', path: '/', views: 4 },
    ]);
    expect(Object.fromEntries(changes.counters.funnel_daily)).toEqual({
      '2026-03-30': { signups: 1, first_paid: 0 },
      '2026-03-31': { signups: 1, first_paid: 0 },
    });
    expect(changes.counters.web_traffic_daily.get('2026-03-30|/')).toEqual({ day: '2026-03-30', path: '/', views: 10 });
    expect(changes.signups).toEqual([
      { user_id: 'u1', day: '2026-03-30' },
      { user_id: 'u2', day: '2026-03-31' },
    ]);
  });
});
