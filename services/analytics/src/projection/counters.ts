import type { MrrMovementKind } from '@qw/contracts';

/**
 * The counters a batch of events adds to the projection's daily and monthly tables. Every figure
 * is a sum of them (docs/analytics.md); an event changes only counts, so replaying a batch in a
 * new generation gives the same sums.
 */
export type MrrCounter = Record<`${MrrMovementKind}_cents`, number> & {
  new_customers: number;
  reactivated_customers: number;
  churned_customers: number;
};

/** Amounts to add, per table and key. They may be negative when a late event moves a count. */
export type Counters = {
  revenue_daily: Map<string, { amount_cents: number; refunded_cents: number; invoices: number }>;
  revenue_monthly_plan: Map<string, { month: string; plan_code: string; amount_cents: number; refunded_cents: number }>;
  subscriptions_daily: Map<string, { new_subs: number; cancels: number }>;
  mrr_daily: Map<string, MrrCounter>;
  /** mrr_daily per customer, keyed `customer|day` (definition 2). */
  customer_mrr_daily: Map<string, MrrCounter & { customer_key: string; day: string }>;
  cohort_cells: Map<string, { cohort_month: string; month_offset: number; customers: number }>;
  funnel_daily: Map<string, { signups: number; first_paid: number }>;
  web_traffic_daily: Map<string, { day: string; path: string; views: number }>;
};

export function emptyCounters(): Counters {
  return {
    revenue_daily: new Map(),
    revenue_monthly_plan: new Map(),
    subscriptions_daily: new Map(),
    mrr_daily: new Map(),
    customer_mrr_daily: new Map(),
    cohort_cells: new Map(),
    funnel_daily: new Map(),
    web_traffic_daily: new Map(),
  };
}

function bump<K, V extends Record<string, unknown>>(map: Map<K, V>, key: K, make: () => V, add: Partial<V>): void {
  let row = map.get(key);
  if (!row) {
    row = make();
    map.set(key, row);
  }
  const target = row as Record<string, unknown>;
  for (const [name, value] of Object.entries(add)) target[name] = (target[name] as number) + (value as number);
}

export function addRevenueDaily(
  counters: Counters,
  day: string,
  add: { amount_cents?: number; refunded_cents?: number; invoices?: number },
): void {
  bump(counters.revenue_daily, day, () => ({ amount_cents: 0, refunded_cents: 0, invoices: 0 }), add);
}

export function addRevenueMonthly(
  counters: Counters,
  month: string,
  plan: string,
  add: { amount_cents?: number; refunded_cents?: number },
): void {
  bump(
    counters.revenue_monthly_plan,
    `${month}|${plan}`,
    () => ({ month, plan_code: plan, amount_cents: 0, refunded_cents: 0 }),
    add,
  );
}

export function addSubscriptionsDaily(counters: Counters, day: string, add: { new_subs?: number; cancels?: number }) {
  bump(counters.subscriptions_daily, day, () => ({ new_subs: 0, cancels: 0 }), add);
}

const noMovement = (): MrrCounter => ({
  new_cents: 0,
  expansion_cents: 0,
  contraction_cents: 0,
  churn_cents: 0,
  reactivation_cents: 0,
  new_customers: 0,
  reactivated_customers: 0,
  churned_customers: 0,
});

/**
 * A customer's MRR movement on `day`; new, reactivated and churned ones also move the paying
 * customers. Counted in the day's totals and in the customer's own share of them.
 */
export function addMrrMovement(
  counters: Counters,
  day: string,
  kind: MrrMovementKind,
  cents: number,
  customerKey: string,
): void {
  const add: Partial<MrrCounter> = {
    [`${kind}_cents`]: cents,
    ...(kind === 'new' ? { new_customers: 1 } : {}),
    ...(kind === 'reactivation' ? { reactivated_customers: 1 } : {}),
    ...(kind === 'churn' ? { churned_customers: 1 } : {}),
  };
  bump(counters.mrr_daily, day, noMovement, add);
  bump(
    counters.customer_mrr_daily,
    `${customerKey}|${day}`,
    () => ({ customer_key: customerKey, day, ...noMovement() }),
    add,
  );
}

export function addFunnel(counters: Counters, day: string, add: { signups?: number; first_paid?: number }): void {
  bump(counters.funnel_daily, day, () => ({ signups: 0, first_paid: 0 }), add);
}

export function addCohortCell(counters: Counters, cohort: string, offset: number, customers: number): void {
  bump(
    counters.cohort_cells,
    `${cohort}|${offset}`,
    () => ({ cohort_month: cohort, month_offset: offset, customers: 0 }),
    { customers },
  );
}

export function addVisits(counters: Counters, day: string, path: string, views: number): void {
  bump(counters.web_traffic_daily, `${day}|${path}`, () => ({ day, path, views: 0 }), { views });
}
