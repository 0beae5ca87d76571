import type { Kysely } from 'kysely';
import { cardBrandName } from '@qw/contracts';
import type Stripe from 'stripe';
import type { BillingDatabase, Subscription } from '../database.ts';
import {
  applySubscriptionState,
  rememberCard,
  type CardFacts,
  recordInvoiceFailed,
  recordInvoicePaid,
  subscriptionForProviderId,
} from '../subscriptions/ledger.ts';
import { monthlyCentsFromPrice, planFromPrice, subscriptionEventStatus } from './stripe-rules.ts';

/**
 * Stripe's objects into the normalized ledger, for the webhooks and for the answers of Stripe's
 * API that billing applies at once (a plan change): the same object gives the same record
 * whichever way it arrived.
 */
type Tx = Kysely<BillingDatabase>;

export const fromUnix = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000) : null);
export const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** Fields older Stripe API versions sent at the top level; newer ones moved them to items and parents. */
type LegacySubscriptionFields = { current_period_start?: number; current_period_end?: number };
type LegacyInvoiceFields = {
  subscription?: string | { id: string } | null;
  payment_intent?: string | { id: string } | null;
};
type LegacyLineFields = { price?: { id: string } | null };

/** A number an older API version put on the object itself, read without pretending the type has it. */
function legacySeconds(object: object, key: keyof LegacySubscriptionFields): number | undefined {
  const value: unknown = Reflect.get(object, key);
  return typeof value === 'number' ? value : undefined;
}

/** What a Stripe subscription says in our terms: its period, plan and price per month, start, schedule. */
export function stripeSubscriptionFacts(object: Stripe.Subscription) {
  const item: (Stripe.SubscriptionItem & LegacySubscriptionFields) | undefined = object.items?.data?.[0];
  const planCode = planFromPrice(item?.price?.id, object.metadata?.plan_code);
  return {
    priceId: item?.price?.id,
    itemId: item?.id,
    quantity: item?.quantity ?? 1,
    planCode,
    monthlyCents: monthlyCentsFromPrice(item?.price, item?.quantity, planCode),
    start: fromUnix(item?.current_period_start ?? legacySeconds(object, 'current_period_start')),
    end: fromUnix(item?.current_period_end ?? legacySeconds(object, 'current_period_end')),
    startedAt: fromUnix(object.start_date),
    scheduleId: idOf(object.schedule),
  };
}

/**
 * Applies a Stripe subscription as it was at `observedAt` (a webhook's event time, or the moment
 * Stripe answered): status, period, plan and price (a plan change at Stripe, or a schedule's next
 * phase at renewal), start. Answers the record and whether this view was newer than ours.
 */
export async function applyStripeSubscription(
  tx: Tx,
  type: 'customer.subscription.created' | 'customer.subscription.updated' | 'customer.subscription.deleted',
  object: Stripe.Subscription,
  observedAt: Date,
): Promise<{ sub: Subscription; applied: boolean; status: string }> {
  const facts = stripeSubscriptionFacts(object);
  const sub = await subscriptionForProviderId(tx, {
    provider: 'stripe',
    providerSubscriptionId: object.id,
    planCode: facts.planCode,
  });
  const status = subscriptionEventStatus(type, object.status);
  const applied = await applySubscriptionState(tx, sub, {
    status,
    periodStart: facts.start,
    periodEnd: facts.end,
    cancelAtPeriodEnd: Boolean(object.cancel_at_period_end),
    observedAt,
    startedAt: facts.startedAt,
    plan: { planCode: facts.planCode, monthlyCents: facts.monthlyCents, pendingPossible: facts.scheduleId !== null },
  });
  return { sub, applied, status };
}

/**
 * The card that paid a Stripe invoice, when the object carries it: the payment intent's payment
 * method or its latest charge's details, expanded (a plain webhook names them by id only, and then
 * the receipt keeps the subscription's card, if any).
 */
export function stripeCardOf(invoice: object): CardFacts | null {
  const intent: unknown = Reflect.get(invoice, 'payment_intent');
  if (!intent || typeof intent !== 'object') return null;
  const method: unknown = Reflect.get(intent, 'payment_method');
  const charge: unknown = Reflect.get(intent, 'latest_charge');
  const fromMethod = method && typeof method === 'object' ? Reflect.get(method, 'card') : undefined;
  const details = charge && typeof charge === 'object' ? Reflect.get(charge, 'payment_method_details') : undefined;
  const fromCharge = details && typeof details === 'object' ? Reflect.get(details, 'card') : undefined;
  const card = (fromMethod ?? fromCharge) as { brand?: unknown; last4?: unknown } | undefined;
  if (!card || typeof card.last4 !== 'string') return null;
  return { brand: cardBrandName(typeof card.brand === 'string' ? card.brand : null), last4: card.last4 };
}

/** Stripe's billing_reason in a receipt's words. */
function reasonOf(reason: string | null | undefined): 'checkout' | 'renewal' | 'plan_change' | undefined {
  if (reason === 'subscription_create') return 'checkout';
  if (reason === 'subscription_cycle') return 'renewal';
  if (reason === 'subscription_update') return 'plan_change';
  return undefined;
}

/** Records a Stripe invoice's payment, or its failure. */
export async function applyStripeInvoice(
  tx: Tx,
  type: 'invoice.paid' | 'invoice.payment_succeeded' | 'invoice.payment_failed',
  object: Stripe.Invoice,
  observedAt: Date,
): Promise<void> {
  const invoice: Stripe.Invoice & LegacyInvoiceFields = object;
  const subscriptionId = idOf(invoice.subscription) ?? idOf(invoice.parent?.subscription_details?.subscription);
  if (!subscriptionId) return;
  const lines: Array<Stripe.InvoiceLineItem & LegacyLineFields> = invoice.lines?.data ?? [];
  const line = lines[0];
  // A proration invoice credits the old price first; the plan it is for is the last line's (or
  // the subscription's metadata as the invoice saw it).
  const last = lines[lines.length - 1];
  const planCode = planFromPrice(
    last?.price?.id ?? idOf(last?.pricing?.price_details?.price),
    invoice.parent?.subscription_details?.metadata?.plan_code ?? invoice.metadata?.plan_code,
  );
  // The first line of a proration invoice is the old price's credit: the plan it moved from.
  const fromPlan =
    lines.length > 1 ? planFromPrice(line?.price?.id ?? idOf(line?.pricing?.price_details?.price), null) : 'unknown';
  const sub = await subscriptionForProviderId(tx, {
    provider: 'stripe',
    providerSubscriptionId: subscriptionId,
    planCode,
    status: 'active',
  });
  const facts = {
    providerInvoiceId: invoice.id ?? null,
    planCode: planCode === 'unknown' ? undefined : planCode,
    amountCents: type === 'invoice.payment_failed' ? invoice.amount_due : invoice.amount_paid,
    currency: invoice.currency,
    card: stripeCardOf(invoice),
    reason: reasonOf(invoice.billing_reason),
    fromPlanCode: fromPlan === 'unknown' || fromPlan === planCode ? null : fromPlan,
    periodStart: fromUnix(line?.period?.start) ?? observedAt,
    periodEnd: fromUnix(line?.period?.end) ?? observedAt,
  };
  if (type === 'invoice.payment_failed') {
    await recordInvoiceFailed(tx, sub, { ...facts, attemptedAt: observedAt });
    return;
  }
  await rememberCard(tx, sub.id, facts.card);
  await recordInvoicePaid(tx, sub, {
    ...facts,
    paidAt: fromUnix(invoice.status_transitions?.paid_at) ?? observedAt,
    providerPaymentId: idOf(invoice.payment_intent),
  });
}
