import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  checkoutCompleted,
  findPlan,
  invoicePaid,
  invoicePaymentFailed,
  subscriptionActivated,
  subscriptionCanceled,
  subscriptionUpdated,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { BillingDatabase, CheckoutSession, Subscription } from '../database.ts';

/**
 * The normalized record of payments: both providers (Stripe webhooks, the test checkout) end
 * here, so the rows and events are the same whichever took the card.
 */
type Tx = Kysely<BillingDatabase>;

/** Its price per month: recorded since plan changes exist, else its plan's catalog price. */
export function monthlyCentsOf(sub: Pick<Subscription, 'monthly_cents' | 'plan_code'>): number {
  return sub.monthly_cents ?? findPlan(sub.plan_code)?.priceCents ?? 0;
}

/**
 * A subscription event's payload. `effectiveAt` says when this state took effect on the
 * subscription's clock (the provider's event time; a test clock's time), which analytics reads
 * instead of the moment the event was written.
 */
export function subscriptionState(sub: Subscription, effectiveAt: Date) {
  const startedAt = sub.started_at ?? sub.current_period_start;
  return {
    subscriptionId: sub.id,
    userId: sub.user_id,
    orgId: sub.org_id,
    planCode: sub.plan_code,
    status: sub.status,
    currentPeriodEnd: sub.current_period_end ? new Date(sub.current_period_end).toISOString() : null,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    ...(startedAt ? { startedAt: new Date(startedAt).toISOString() } : {}),
    effectiveAt: effectiveAt.toISOString(),
    monthlyCents: monthlyCentsOf(sub),
    pendingPlanCode: sub.pending_plan_code,
  };
}

/** Announces the subscription as it is now (once it has an owner): its state took effect at `effectiveAt`. */
export async function publishSubscriptionUpdated(tx: Tx, subscriptionId: string, effectiveAt: Date): Promise<void> {
  const sub = await tx
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
  if (sub.user_id || sub.org_id) await addToOutbox(tx, subscriptionUpdated, subscriptionState(sub, effectiveAt));
}

export async function upsertCustomer(
  tx: Tx,
  input: { provider: string; providerCustomerId: string | null; email: string },
): Promise<string> {
  if (input.providerCustomerId) {
    const existing = await tx
      .selectFrom('customers')
      .select('id')
      .where('provider_customer_id', '=', input.providerCustomerId)
      .executeTakeFirst();
    if (existing) return existing.id;
  }
  const id = randomUUID();
  await tx
    .insertInto('customers')
    .values({
      id,
      provider: input.provider,
      provider_customer_id: input.providerCustomerId,
      email: input.email,
      user_id: null,
    })
    .execute();
  return id;
}

/** Finds the subscription by the provider's id, creating a placeholder when an event about it arrives first. */
export async function subscriptionForProviderId(
  tx: Tx,
  input: { provider: string; providerSubscriptionId: string; planCode: string; status?: string },
): Promise<Subscription> {
  const existing = await tx
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider_subscription_id', '=', input.providerSubscriptionId)
    .forUpdate()
    .executeTakeFirst();
  if (existing) return existing;
  await tx
    .insertInto('subscriptions')
    .values({
      id: randomUUID(),
      provider: input.provider,
      provider_subscription_id: input.providerSubscriptionId,
      customer_id: null,
      user_id: null,
      org_id: null,
      plan_code: input.planCode,
      status: input.status ?? 'incomplete',
      current_period_start: null,
      current_period_end: null,
      canceled_at: null,
      provider_updated_at: null,
    })
    .onConflict((oc) => oc.column('provider_subscription_id').doNothing())
    .execute();
  return tx
    .selectFrom('subscriptions')
    .selectAll()
    .where('provider_subscription_id', '=', input.providerSubscriptionId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** A checkout was paid: the session records the buyer's email, customer and subscription. */
export async function markCheckoutPaid(
  tx: Tx,
  session: CheckoutSession,
  input: {
    email: string;
    customerId: string;
    subscriptionId: string;
    paidAt: Date;
  },
): Promise<void> {
  if (session.status !== 'open') return;
  await tx
    .updateTable('checkout_sessions')
    .set({
      status: 'paid',
      email: input.email,
      customer_id: input.customerId,
      subscription_id: input.subscriptionId,
      paid_at: input.paidAt,
    })
    .where('id', '=', session.id)
    .execute();
  await tx
    .updateTable('subscriptions')
    .set({ customer_id: input.customerId, seats: session.quantity })
    .where('id', '=', input.subscriptionId)
    .where('customer_id', 'is', null)
    .execute();
  await addToOutbox(tx, checkoutCompleted, {
    sessionId: session.id,
    planCode: session.plan_code,
    accountType: session.account_type,
    seats: session.quantity,
    amountCents: session.amount_cents,
    currency: session.currency,
    paidAt: input.paidAt.toISOString(),
  });
}

/** A delayed payment failed: the checkout will never be paid; nothing else was recorded for it. */
export async function markCheckoutFailed(tx: Tx, session: CheckoutSession): Promise<void> {
  if (session.status !== 'open') return;
  await tx.updateTable('checkout_sessions').set({ status: 'failed' }).where('id', '=', session.id).execute();
}

export type InvoiceFacts = {
  providerInvoiceId: string | null;
  /** The plan the invoice is for when it is not the subscription's plan yet (Stripe says so before its subscription event). */
  planCode?: string | undefined;
  amountCents: number;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date;
  providerPaymentId: string | null;
  /** Why it was charged (the receipt says so): the first payment, a renewal, an upgrade's proration. */
  reason?: 'checkout' | 'renewal' | 'plan_change' | undefined;
  /** A plan change's invoice: the plan it moved from (its receipt says "Upgrade from … to …"). */
  fromPlanCode?: string | null | undefined;
  /** The card that paid, as the provider reports it; without it the subscription's card. */
  card?: CardFacts | null | undefined;
};

/** A card as receipts name it: its brand and last four digits, nothing more. */
export type CardFacts = { brand: string | null; last4: string | null };

/** The invoice's card: the one the provider reported for it, else the subscription's. */
function cardOf(sub: Subscription, card: CardFacts | null | undefined): CardFacts {
  const last4 = card?.last4 && /^\d{4}$/.test(card.last4) ? card.last4 : null;
  if (last4) return { brand: card?.brand ?? null, last4 };
  return { brand: sub.card_brand, last4: sub.card_last4 };
}

/** Remembers the card a subscription renews with (the provider reported one). */
export async function rememberCard(tx: Tx, subscriptionId: string, card: CardFacts | null | undefined): Promise<void> {
  if (!card?.last4 || !/^\d{4}$/.test(card.last4)) return;
  await tx
    .updateTable('subscriptions')
    .set({ card_brand: card.brand, card_last4: card.last4 })
    .where('id', '=', subscriptionId)
    .execute();
}

/** Records a paid invoice once (by the provider's id) and moves the subscription's period forward. */
export async function recordInvoicePaid(tx: Tx, sub: Subscription, facts: InvoiceFacts): Promise<string | null> {
  if (facts.providerInvoiceId) {
    const known = await tx
      .selectFrom('invoices')
      .select(['id', 'status'])
      .where('provider_invoice_id', '=', facts.providerInvoiceId)
      .executeTakeFirst();
    if (known?.status === 'paid' || known?.status === 'refunded') return null;
    if (known) await tx.deleteFrom('invoices').where('id', '=', known.id).execute();
  }
  const id = randomUUID();
  const planCode = facts.planCode ?? sub.plan_code;
  const card = cardOf(sub, facts.card);
  const inserted = await tx
    .insertInto('invoices')
    .values({
      id,
      provider_invoice_id: facts.providerInvoiceId,
      subscription_id: sub.id,
      user_id: sub.user_id,
      org_id: sub.org_id,
      plan_code: planCode,
      amount_cents: facts.amountCents,
      currency: facts.currency.toUpperCase(),
      status: 'paid',
      period_start: facts.periodStart,
      period_end: facts.periodEnd,
      paid_at: facts.paidAt,
      provider_payment_id: facts.providerPaymentId,
      card_brand: card.brand,
      card_last4: card.last4,
      reason: facts.reason ?? null,
      from_plan_code: facts.reason === 'plan_change' ? (facts.fromPlanCode ?? null) : null,
    })
    .returning('number')
    .executeTakeFirstOrThrow();
  const periodEnd = sub.current_period_end ? new Date(sub.current_period_end) : null;
  if (!periodEnd || facts.periodEnd > periodEnd) {
    await tx
      .updateTable('subscriptions')
      .set({ current_period_start: facts.periodStart, current_period_end: facts.periodEnd })
      .where('id', '=', sub.id)
      .execute();
  }
  // The first paid period starts the subscription (Stripe's own start date, when it comes, wins).
  if (!sub.started_at)
    await tx
      .updateTable('subscriptions')
      .set({ started_at: facts.periodStart })
      .where('id', '=', sub.id)
      .where('started_at', 'is', null)
      .execute();
  if (sub.status === 'past_due' || sub.status === 'incomplete')
    await setSubscriptionStatus(tx, sub.id, 'active', facts.paidAt);
  await addToOutbox(tx, invoicePaid, {
    invoiceId: id,
    subscriptionId: sub.id,
    userId: sub.user_id,
    orgId: sub.org_id,
    planCode,
    amountCents: facts.amountCents,
    currency: facts.currency.toUpperCase(),
    periodStart: facts.periodStart.toISOString(),
    periodEnd: facts.periodEnd.toISOString(),
    paidAt: facts.paidAt.toISOString(),
    ...(facts.reason ? { reason: facts.reason } : {}),
    invoiceNumber: Number(inserted.number),
    cardBrand: card.brand,
    cardLast4: card.last4,
  });
  return id;
}

export async function recordInvoiceFailed(
  tx: Tx,
  sub: Subscription,
  facts: Omit<InvoiceFacts, 'paidAt' | 'providerPaymentId'> & { attemptedAt: Date },
): Promise<void> {
  const known = facts.providerInvoiceId
    ? await tx
        .selectFrom('invoices')
        .select(['id', 'status'])
        .where('provider_invoice_id', '=', facts.providerInvoiceId)
        .executeTakeFirst()
    : undefined;
  if (known && known.status !== 'open') return;
  const id = known?.id ?? randomUUID();
  const card = cardOf(sub, facts.card);
  if (!known) {
    await tx
      .insertInto('invoices')
      .values({
        id,
        provider_invoice_id: facts.providerInvoiceId,
        subscription_id: sub.id,
        user_id: sub.user_id,
        org_id: sub.org_id,
        plan_code: facts.planCode ?? sub.plan_code,
        amount_cents: facts.amountCents,
        currency: facts.currency.toUpperCase(),
        status: 'failed',
        period_start: facts.periodStart,
        period_end: facts.periodEnd,
        paid_at: null,
        provider_payment_id: null,
        card_brand: card.brand,
        card_last4: card.last4,
        reason: facts.reason ?? null,
        from_plan_code: facts.reason === 'plan_change' ? (facts.fromPlanCode ?? null) : null,
      })
      .execute();
  } else {
    await tx.updateTable('invoices').set({ status: 'failed' }).where('id', '=', id).execute();
  }
  if (sub.status === 'active') await setSubscriptionStatus(tx, sub.id, 'past_due', facts.attemptedAt);
  const { number } = await tx.selectFrom('invoices').select('number').where('id', '=', id).executeTakeFirstOrThrow();
  await addToOutbox(tx, invoicePaymentFailed, {
    invoiceId: id,
    subscriptionId: sub.id,
    userId: sub.user_id,
    orgId: sub.org_id,
    planCode: facts.planCode ?? sub.plan_code,
    amountCents: facts.amountCents,
    attemptedAt: facts.attemptedAt.toISOString(),
    currency: facts.currency.toUpperCase(),
    invoiceNumber: Number(number),
    cardBrand: card.brand,
    cardLast4: card.last4,
  });
}

async function setSubscriptionStatus(tx: Tx, id: string, status: string, effectiveAt: Date): Promise<void> {
  await tx.updateTable('subscriptions').set({ status }).where('id', '=', id).execute();
  await publishSubscriptionUpdated(tx, id, effectiveAt);
}

/**
 * Whether the provider's view of a subscription observed at `observedAt` replaces ours: not when a
 * newer one was applied already (webhooks arrive out of order), and a canceled subscription never
 * comes back (Stripe does not revive one either; buying again makes a new subscription).
 */
export function subscriptionTransition(
  current: { status: string; providerUpdatedAt: Date | null },
  incoming: { status: string; observedAt: Date },
): { apply: boolean; becameCanceled: boolean } {
  if (current.providerUpdatedAt && current.providerUpdatedAt > incoming.observedAt)
    return { apply: false, becameCanceled: false };
  if (current.status === 'canceled' && incoming.status !== 'canceled') return { apply: false, becameCanceled: false };
  return { apply: true, becameCanceled: incoming.status === 'canceled' && current.status !== 'canceled' };
}

/** The plan as the provider reports it (Stripe: the price of the subscription's item). */
export type ProviderPlan = {
  planCode: string;
  monthlyCents: number;
  /** Whether a downgrade may still be waiting (Stripe: a schedule is attached); if not, none is. */
  pendingPossible: boolean;
};

/**
 * Applies the provider's view of a subscription when `subscriptionTransition` allows it, with its
 * event; `observedAt` is when that view took effect (its `effectiveAt`, and `canceledAt`).
 */
export async function applySubscriptionState(
  tx: Tx,
  sub: Subscription,
  state: {
    status: string;
    periodStart: Date | null;
    periodEnd: Date | null;
    cancelAtPeriodEnd: boolean;
    observedAt: Date;
    startedAt?: Date | null | undefined;
    plan?: ProviderPlan | undefined;
  },
): Promise<boolean> {
  const { apply, becameCanceled } = subscriptionTransition(
    { status: sub.status, providerUpdatedAt: sub.provider_updated_at ? new Date(sub.provider_updated_at) : null },
    state,
  );
  if (!apply) return false;
  const plan = state.plan && findPlan(state.plan.planCode) ? state.plan : undefined;
  // The plan it moved to is no longer pending; without a schedule nothing is.
  const pending =
    plan && (!plan.pendingPossible || sub.pending_plan_code === plan.planCode) ? { pending_plan_code: null } : {};
  await tx
    .updateTable('subscriptions')
    .set({
      status: state.status,
      ...(state.periodStart ? { current_period_start: state.periodStart } : {}),
      ...(state.periodEnd ? { current_period_end: state.periodEnd } : {}),
      ...(state.startedAt ? { started_at: state.startedAt } : {}),
      ...(plan ? { plan_code: plan.planCode, monthly_cents: plan.monthlyCents } : {}),
      ...pending,
      ...(plan && !plan.pendingPossible ? { provider_schedule_id: null } : {}),
      cancel_at_period_end: state.cancelAtPeriodEnd,
      provider_updated_at: state.observedAt,
      ...(becameCanceled ? { canceled_at: state.observedAt, pending_plan_code: null } : {}),
    })
    .where('id', '=', sub.id)
    .execute();
  const after = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
  if (after.user_id || after.org_id) {
    if (becameCanceled)
      await addToOutbox(tx, subscriptionCanceled, {
        ...subscriptionState(after, state.observedAt),
        canceledAt: state.observedAt.toISOString(),
      });
    else await addToOutbox(tx, subscriptionUpdated, subscriptionState(after, state.observedAt));
  }
  return true;
}

/** The subscription gained its owner; from here on its events name who it belongs to. */
export async function assignOwner(
  tx: Tx,
  sub: Subscription,
  owner: { userId: string; orgId: string | null },
  claimedAt: Date,
): Promise<Subscription> {
  await tx
    .updateTable('subscriptions')
    .set({ user_id: owner.userId, org_id: owner.orgId })
    .where('id', '=', sub.id)
    .execute();
  await tx
    .updateTable('invoices')
    .set({ user_id: owner.userId, org_id: owner.orgId })
    .where('subscription_id', '=', sub.id)
    .execute();
  if (sub.customer_id)
    await tx.updateTable('customers').set({ user_id: owner.userId }).where('id', '=', sub.customer_id).execute();
  // A money-back refund given before the claim still counts against this account.
  await tx.updateTable('refunds').set({ user_id: owner.userId }).where('subscription_id', '=', sub.id).execute();
  const after = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
  if (after.status === 'active') await addToOutbox(tx, subscriptionActivated, subscriptionState(after, claimedAt));
  return after;
}
