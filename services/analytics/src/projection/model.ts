import {
  countsTowardMrr,
  monthlyPriceCents,
  monthsBetween,
  mrrMovement,
  type MrrMovementKind,
  utcDay,
  utcMonth,
} from '@qw/contracts';

/**
 * The rules of the analytics projection (definition 1), on rows held in memory for one batch of
 * events. `ProjectionBatch` reads the rows it needs through a `ProjectionStore`, applies events
 * in stream order, and hands back what changed: rows to write and counters to add. The figures
 * are sums of those counters (see docs/analytics.md for what each one means).
 */

/** A subscription as analytics knows it; `mrr_cents` is what it adds to its customer's MRR now. */
export type SubscriptionRow = {
  subscription_id: string;
  customer_key: string | null;
  plan_code: string;
  monthly_cents: number;
  status: string;
  mrr_cents: number;
  counted_new: boolean;
  canceled_day: string | null;
  /** The newest state applied (ISO time); an older state arriving late changes nothing. */
  last_effective_at: string | null;
};

/** A customer: a person's personal plans, or an organization's plans. */
export type CustomerRow = {
  customer_key: string;
  mrr_cents: number;
  /** Had MRR above 0 at some time: a new start after a stop is a reactivation, not new. */
  ever_subscribed: boolean;
  first_paid_day: string | null;
  cohort_month: string | null;
};

export type InvoiceRow = {
  invoice_id: string;
  subscription_id: string | null;
  customer_key: string | null;
  plan_code: string;
  amount_cents: number;
  paid_day: string;
};

export type SubscriptionState = {
  subscriptionId: string;
  userId: string | null;
  orgId: string | null;
  planCode: string;
  status: string;
  startedAt?: string | undefined;
  effectiveAt?: string | undefined;
  monthlyCents?: number | undefined;
};

/** The events the projection takes, from billing, identity and the gateway. */
export type ProjectionEvent =
  | {
      kind: 'subscription';
      occurredAt: string;
      state: SubscriptionState;
      /** Set on billing's canceled event: the subscription ended then. */
      canceledAt?: string | undefined;
    }
  | {
      kind: 'invoice';
      invoiceId: string;
      subscriptionId: string | null;
      owner: string | null;
      planCode: string;
      amountCents: number;
      paidAt: string;
    }
  | { kind: 'refund'; invoiceId: string; amountCents: number; issuedAt: string }
  | { kind: 'signup'; registeredAt: string }
  | { kind: 'visits'; day: string; path: string; views: number };

export interface ProjectionStore {
  subscriptions(ids: readonly string[]): Promise<SubscriptionRow[]>;
  customers(keys: readonly string[]): Promise<CustomerRow[]>;
  /** The months in which each customer paid something. */
  customerMonths(keys: readonly string[]): Promise<Array<{ customer_key: string; month: string }>>;
  invoices(ids: readonly string[]): Promise<InvoiceRow[]>;
  /** Paid invoices of these subscriptions whose owner was not known when they were paid. */
  unattributedInvoices(subscriptionIds: readonly string[]): Promise<InvoiceRow[]>;
}

type MrrCounter = Record<`${MrrMovementKind}_cents`, number> & {
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
  cohort_cells: Map<string, { cohort_month: string; month_offset: number; customers: number }>;
  funnel_daily: Map<string, { signups: number; first_paid: number }>;
  web_traffic_daily: Map<string, { day: string; path: string; views: number }>;
};

export type BatchChanges = {
  subscriptions: SubscriptionRow[];
  customers: CustomerRow[];
  invoices: InvoiceRow[];
  customerMonths: Array<{ customer_key: string; month: string }>;
  counters: Counters;
};

function emptyCounters(): Counters {
  return {
    revenue_daily: new Map(),
    revenue_monthly_plan: new Map(),
    subscriptions_daily: new Map(),
    mrr_daily: new Map(),
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

const later = (a: string, b: string) => new Date(a).getTime() > new Date(b).getTime();

export class ProjectionBatch {
  private readonly subs = new Map<string, SubscriptionRow | null>();
  private readonly customersByKey = new Map<string, CustomerRow | null>();
  private readonly months = new Map<string, Set<string>>();
  private readonly invoicesById = new Map<string, InvoiceRow | null>();
  /** Subscriptions whose unattributed invoices have been read into `invoicesById`. */
  private readonly unattributedRead = new Set<string>();
  private readonly dirtySubs = new Set<string>();
  private readonly dirtyCustomers = new Set<string>();
  private readonly dirtyInvoices = new Set<string>();
  private readonly newMonths: Array<{ customer_key: string; month: string }> = [];
  private readonly counters = emptyCounters();

  constructor(private readonly store: ProjectionStore) {}

  /** Reads in a few queries every row the events will touch, instead of one query per event. */
  async prefetch(events: readonly ProjectionEvent[]): Promise<void> {
    const subIds = new Set<string>();
    const owners = new Set<string>();
    const invoiceIds = new Set<string>();
    for (const event of events) {
      if (event.kind === 'subscription') {
        subIds.add(event.state.subscriptionId);
        const owner = event.state.orgId ?? event.state.userId;
        if (owner) owners.add(owner);
      } else if (event.kind === 'invoice') {
        invoiceIds.add(event.invoiceId);
        if (event.subscriptionId) subIds.add(event.subscriptionId);
        if (event.owner) owners.add(event.owner);
      } else if (event.kind === 'refund') invoiceIds.add(event.invoiceId);
    }
    await this.loadSubscriptions([...subIds]);
    for (const id of subIds) {
      const key = this.subs.get(id)?.customer_key;
      if (key) owners.add(key);
    }
    await this.loadCustomers([...owners]);
    await this.loadInvoices([...invoiceIds]);
    // Subscriptions that may gain their owner in this batch: their invoices paid before that.
    const ownerless = [...subIds].filter((id) => !this.subs.get(id)?.customer_key);
    await this.loadUnattributed(ownerless);
  }

  private async loadUnattributed(subscriptionIds: string[]): Promise<void> {
    const missing = subscriptionIds.filter((id) => !this.unattributedRead.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.unattributedRead.add(id);
    for (const invoice of await this.store.unattributedInvoices(missing))
      if (!this.invoicesById.get(invoice.invoice_id)) this.invoicesById.set(invoice.invoice_id, invoice);
  }

  async apply(event: ProjectionEvent): Promise<void> {
    switch (event.kind) {
      case 'subscription':
        return this.applySubscription(event);
      case 'invoice':
        return this.applyInvoice(event);
      case 'refund':
        return this.applyRefund(event);
      case 'signup':
        this.funnel(utcDay(event.registeredAt), { signups: 1 });
        return;
      case 'visits':
        bump(
          this.counters.web_traffic_daily,
          `${event.day}|${event.path}`,
          () => ({ day: event.day, path: event.path, views: 0 }),
          { views: event.views },
        );
        return;
    }
  }

  changes(): BatchChanges {
    const pick = <T>(map: Map<string, T | null>, keys: Set<string>) =>
      [...keys].map((key) => map.get(key)).filter((row): row is T => row != null);
    return {
      subscriptions: pick(this.subs, this.dirtySubs),
      customers: pick(this.customersByKey, this.dirtyCustomers),
      invoices: pick(this.invoicesById, this.dirtyInvoices),
      customerMonths: this.newMonths,
      counters: this.counters,
    };
  }

  private async applySubscription(event: Extract<ProjectionEvent, { kind: 'subscription' }>): Promise<void> {
    const { state } = event;
    const at = state.effectiveAt ?? event.occurredAt;
    await this.loadSubscriptions([state.subscriptionId]);
    const known = this.subs.get(state.subscriptionId) ?? null;
    if (known?.last_effective_at && later(known.last_effective_at, at)) return;
    const sub: SubscriptionRow = known ?? {
      subscription_id: state.subscriptionId,
      customer_key: null,
      plan_code: state.planCode,
      monthly_cents: 0,
      status: state.status,
      mrr_cents: 0,
      counted_new: false,
      canceled_day: null,
      last_effective_at: null,
    };
    this.subs.set(sub.subscription_id, sub);
    this.dirtySubs.add(sub.subscription_id);

    const owner = state.orgId ?? state.userId;
    if (owner && sub.customer_key === null) {
      sub.customer_key = owner;
      await this.attributeEarlierInvoices(sub);
    }
    const customerKey = sub.customer_key;
    const monthly = monthlyPriceCents(state.planCode, state.monthlyCents);
    const contribution = customerKey && countsTowardMrr(state.status) ? monthly : 0;

    // The first time it counts, it counts from its start (the first payment), not from when its
    // buyer claimed it.
    let movementAt = at;
    if (!sub.counted_new && contribution > 0) {
      sub.counted_new = true;
      movementAt = state.startedAt ?? at;
      this.subscriptionsDaily(utcDay(movementAt), { new_subs: 1 });
    }
    if (event.canceledAt && sub.canceled_day === null && sub.counted_new) {
      sub.canceled_day = utcDay(event.canceledAt);
      this.subscriptionsDaily(sub.canceled_day, { cancels: 1 });
    }
    if (customerKey && contribution !== sub.mrr_cents) {
      const customer = await this.customer(customerKey);
      const before = customer.mrr_cents;
      const after = before - sub.mrr_cents + contribution;
      const movement = mrrMovement(before, after, customer.ever_subscribed);
      if (movement) this.recordMovement(utcDay(event.canceledAt ?? movementAt), movement.kind, movement.cents);
      customer.mrr_cents = after;
      if (after > 0) customer.ever_subscribed = true;
      this.dirtyCustomers.add(customerKey);
    }
    sub.mrr_cents = contribution;
    sub.plan_code = state.planCode;
    sub.monthly_cents = monthly;
    sub.status = state.status;
    sub.last_effective_at = new Date(at).toISOString();
  }

  private async applyInvoice(event: Extract<ProjectionEvent, { kind: 'invoice' }>): Promise<void> {
    await this.loadInvoices([event.invoiceId]);
    if (this.invoicesById.get(event.invoiceId)) return;
    const day = utcDay(event.paidAt);
    bump(this.counters.revenue_daily, day, () => ({ amount_cents: 0, refunded_cents: 0, invoices: 0 }), {
      amount_cents: event.amountCents,
      invoices: 1,
    });
    this.revenueMonthly(utcMonth(event.paidAt), event.planCode, { amount_cents: event.amountCents });
    let owner = event.owner;
    if (!owner && event.subscriptionId) {
      await this.loadSubscriptions([event.subscriptionId]);
      owner = this.subs.get(event.subscriptionId)?.customer_key ?? null;
    }
    const invoice: InvoiceRow = {
      invoice_id: event.invoiceId,
      subscription_id: event.subscriptionId,
      customer_key: owner,
      plan_code: event.planCode,
      amount_cents: event.amountCents,
      paid_day: day,
    };
    this.invoicesById.set(invoice.invoice_id, invoice);
    this.dirtyInvoices.add(invoice.invoice_id);
    if (owner) await this.attribute(owner, day);
  }

  private async applyRefund(event: Extract<ProjectionEvent, { kind: 'refund' }>): Promise<void> {
    const day = utcDay(event.issuedAt);
    bump(this.counters.revenue_daily, day, () => ({ amount_cents: 0, refunded_cents: 0, invoices: 0 }), {
      refunded_cents: event.amountCents,
    });
    await this.loadInvoices([event.invoiceId]);
    const plan = this.invoicesById.get(event.invoiceId)?.plan_code ?? 'unknown';
    this.revenueMonthly(utcMonth(event.issuedAt), plan, { refunded_cents: event.amountCents });
  }

  /** The invoices paid before the subscription had an owner (a purchase claimed after paying). */
  private async attributeEarlierInvoices(sub: SubscriptionRow): Promise<void> {
    const owner = sub.customer_key!;
    await this.loadUnattributed([sub.subscription_id]);
    const waiting = [...this.invoicesById.values()]
      .filter(
        (invoice): invoice is InvoiceRow =>
          invoice?.subscription_id === sub.subscription_id && invoice.customer_key === null,
      )
      .sort((a, b) => a.paid_day.localeCompare(b.paid_day));
    for (const invoice of waiting) {
      invoice.customer_key = owner;
      this.dirtyInvoices.add(invoice.invoice_id);
      await this.attribute(owner, invoice.paid_day);
    }
  }

  /**
   * A customer paid on `day`: the month counts for its cohort. The cohort is the month of the first
   * payment; an earlier payment learnt late moves the customer to the earlier cohort.
   */
  private async attribute(customerKey: string, day: string): Promise<void> {
    const customer = await this.customer(customerKey);
    const months = await this.monthsOf(customerKey);
    const month = utcMonth(day);
    if (customer.first_paid_day && day < customer.first_paid_day) {
      this.funnel(customer.first_paid_day, { first_paid: -1 });
      this.funnel(day, { first_paid: 1 });
      customer.first_paid_day = day;
      this.dirtyCustomers.add(customerKey);
    }
    if (months.has(month)) return;
    months.add(month);
    this.newMonths.push({ customer_key: customerKey, month });
    this.dirtyCustomers.add(customerKey);
    if (customer.cohort_month === null) {
      customer.cohort_month = month;
      customer.first_paid_day = day;
      this.funnel(day, { first_paid: 1 });
      this.cohortCell(month, 0, 1);
      return;
    }
    if (month < customer.cohort_month) {
      const previous = customer.cohort_month;
      for (const paid of months) {
        if (paid === month) continue;
        this.cohortCell(previous, monthsBetween(previous, paid), -1);
        this.cohortCell(month, monthsBetween(month, paid), 1);
      }
      this.cohortCell(month, 0, 1);
      customer.cohort_month = month;
      return;
    }
    this.cohortCell(customer.cohort_month, monthsBetween(customer.cohort_month, month), 1);
  }

  private recordMovement(day: string, kind: MrrMovementKind, cents: number): void {
    bump(
      this.counters.mrr_daily,
      day,
      () => ({
        new_cents: 0,
        expansion_cents: 0,
        contraction_cents: 0,
        churn_cents: 0,
        reactivation_cents: 0,
        new_customers: 0,
        reactivated_customers: 0,
        churned_customers: 0,
      }),
      {
        [`${kind}_cents`]: cents,
        ...(kind === 'new' ? { new_customers: 1 } : {}),
        ...(kind === 'reactivation' ? { reactivated_customers: 1 } : {}),
        ...(kind === 'churn' ? { churned_customers: 1 } : {}),
      },
    );
  }

  private subscriptionsDaily(day: string, add: { new_subs?: number; cancels?: number }): void {
    bump(this.counters.subscriptions_daily, day, () => ({ new_subs: 0, cancels: 0 }), add);
  }

  private funnel(day: string, add: { signups?: number; first_paid?: number }): void {
    bump(this.counters.funnel_daily, day, () => ({ signups: 0, first_paid: 0 }), add);
  }

  private revenueMonthly(month: string, plan: string, add: { amount_cents?: number; refunded_cents?: number }): void {
    bump(
      this.counters.revenue_monthly_plan,
      `${month}|${plan}`,
      () => ({ month, plan_code: plan, amount_cents: 0, refunded_cents: 0 }),
      add,
    );
  }

  private cohortCell(cohort: string, offset: number, customers: number): void {
    bump(
      this.counters.cohort_cells,
      `${cohort}|${offset}`,
      () => ({ cohort_month: cohort, month_offset: offset, customers: 0 }),
      { customers },
    );
  }

  private async customer(key: string): Promise<CustomerRow> {
    await this.loadCustomers([key]);
    let row = this.customersByKey.get(key) ?? null;
    if (!row) {
      row = { customer_key: key, mrr_cents: 0, ever_subscribed: false, first_paid_day: null, cohort_month: null };
      this.customersByKey.set(key, row);
      this.dirtyCustomers.add(key);
    }
    return row;
  }

  private async monthsOf(key: string): Promise<Set<string>> {
    await this.loadCustomers([key]);
    return this.months.get(key)!;
  }

  private async loadSubscriptions(ids: string[]): Promise<void> {
    const missing = ids.filter((id) => !this.subs.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.subs.set(id, null);
    for (const row of await this.store.subscriptions(missing)) this.subs.set(row.subscription_id, row);
  }

  private async loadCustomers(keys: string[]): Promise<void> {
    const missing = keys.filter((key) => !this.customersByKey.has(key));
    if (missing.length === 0) return;
    for (const key of missing) {
      this.customersByKey.set(key, null);
      this.months.set(key, new Set());
    }
    for (const row of await this.store.customers(missing)) this.customersByKey.set(row.customer_key, row);
    for (const row of await this.store.customerMonths(missing)) this.months.get(row.customer_key)!.add(row.month);
  }

  private async loadInvoices(ids: string[]): Promise<void> {
    const missing = ids.filter((id) => !this.invoicesById.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.invoicesById.set(id, null);
    for (const row of await this.store.invoices(missing)) this.invoicesById.set(row.invoice_id, row);
  }
}
