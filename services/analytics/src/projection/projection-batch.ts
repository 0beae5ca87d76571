import { countsTowardMrr, monthlyPriceCents, mrrMovement, utcDay, utcMonth } from '@qw/contracts';
import { attributePayment } from './cohort-rules.ts';
import {
  addCohortCell,
  addFunnel,
  addMrrMovement,
  addRevenueDaily,
  addRevenueMonthly,
  addSubscriptionsDaily,
  addVisits,
  emptyCounters,
} from './counters.ts';
import type {
  BatchChanges,
  CustomerRow,
  InvoiceRow,
  ProjectionEvent,
  ProjectionStore,
  SubscriptionRow,
} from './rows.ts';

/**
 * One batch of the analytics projection (definition 2), on rows held in memory. It reads the rows
 * it needs through a `ProjectionStore`, applies events in stream order, and hands back what
 * changed: rows to write and counters to add. What a payment does to a cohort is decided in
 * cohort-rules.ts, what an MRR change is by contracts' `mrrMovement`.
 */

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
  private readonly refunds = new Map<string, BatchChanges['refunds'][number]>();
  private readonly signups = new Map<string, BatchChanges['signups'][number]>();
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
      case 'signup': {
        const day = utcDay(event.registeredAt);
        addFunnel(this.counters, day, { signups: 1 });
        this.signups.set(event.userId, { user_id: event.userId, day });
        return;
      }
      case 'visits':
        addVisits(this.counters, event.day, event.path, event.views);
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
      refunds: [...this.refunds.values()],
      signups: [...this.signups.values()],
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
      new_day: null,
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
      sub.new_day = utcDay(movementAt);
      addSubscriptionsDaily(this.counters, sub.new_day, { new_subs: 1 });
    }
    if (event.canceledAt && sub.canceled_day === null && sub.counted_new) {
      sub.canceled_day = utcDay(event.canceledAt);
      addSubscriptionsDaily(this.counters, sub.canceled_day, { cancels: 1 });
    }
    if (customerKey && contribution !== sub.mrr_cents) {
      const customer = await this.customer(customerKey);
      const before = customer.mrr_cents;
      const after = before - sub.mrr_cents + contribution;
      const movement = mrrMovement(before, after, customer.ever_subscribed);
      if (movement)
        addMrrMovement(
          this.counters,
          utcDay(event.canceledAt ?? movementAt),
          movement.kind,
          movement.cents,
          customerKey,
        );
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
    addRevenueDaily(this.counters, day, { amount_cents: event.amountCents, invoices: 1 });
    addRevenueMonthly(this.counters, utcMonth(event.paidAt), event.planCode, { amount_cents: event.amountCents });
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
    addRevenueDaily(this.counters, day, { refunded_cents: event.amountCents });
    await this.loadInvoices([event.invoiceId]);
    const plan = this.invoicesById.get(event.invoiceId)?.plan_code ?? 'unknown';
    addRevenueMonthly(this.counters, utcMonth(event.issuedAt), plan, { refunded_cents: event.amountCents });
    this.refunds.set(event.refundId, {
      refund_id: event.refundId,
      invoice_id: event.invoiceId,
      plan_code: plan,
      amount_cents: event.amountCents,
      day,
    });
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

  /** A customer paid on `day`: its cohort and funnel move as cohort-rules.ts decides. */
  private async attribute(customerKey: string, day: string): Promise<void> {
    const customer = await this.customer(customerKey);
    const months = await this.monthsOf(customerKey);
    const result = attributePayment(customer, months, day);
    customer.cohort_month = result.customer.cohort_month;
    customer.first_paid_day = result.customer.first_paid_day;
    if (result.changed) this.dirtyCustomers.add(customerKey);
    if (result.newMonth) {
      months.add(result.newMonth);
      this.newMonths.push({ customer_key: customerKey, month: result.newMonth });
    }
    for (const move of result.funnel) addFunnel(this.counters, move.day, { first_paid: move.first_paid });
    for (const cell of result.cells) addCohortCell(this.counters, cell.cohort, cell.offset, cell.customers);
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
