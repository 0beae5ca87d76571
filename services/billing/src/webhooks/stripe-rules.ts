import { findPlan, plans } from '@qw/contracts';

/** Our plan for a Stripe price: the plan code in the metadata when it is one of ours, else the price id's plan. */
export function planFromPrice(priceId: string | null | undefined, metadataPlan: string | null | undefined): string {
  if (metadataPlan && findPlan(metadataPlan)) return metadataPlan;
  return plans.find((plan) => plan.priceId === priceId)?.code ?? 'unknown';
}

/** The parts of a Stripe price that say what it costs a month. */
export type PriceAmount = {
  unit_amount?: number | null;
  recurring?: { interval?: string; interval_count?: number | null } | null;
};

/**
 * A subscription's price per month in cents: the price's unit amount (times the quantity) when it
 * is billed every month; otherwise (a yearly price, an amount Stripe does not state) the catalog
 * price of the plan.
 */
export function monthlyCentsFromPrice(
  price: PriceAmount | null | undefined,
  quantity: number | null | undefined,
  planCode: string,
): number {
  const monthly = price?.recurring?.interval === 'month' && (price.recurring.interval_count ?? 1) === 1;
  if (monthly && typeof price?.unit_amount === 'number') return price.unit_amount * (quantity ?? 1);
  return findPlan(planCode)?.priceCents ?? 0;
}

/** Stripe's statuses in our words: trialing counts as active, unpaid and incomplete_expired as ended. */
export function normalizeStatus(status: string): string {
  if (status === 'trialing') return 'active';
  if (status === 'unpaid' || status === 'incomplete_expired') return 'canceled';
  return status;
}

/** The state a customer.subscription.* event reports: a deleted subscription is canceled whatever it says. */
export function subscriptionEventStatus(eventType: string, status: string): string {
  return eventType === 'customer.subscription.deleted' ? 'canceled' : normalizeStatus(status);
}

export type CheckoutPayment = 'paid' | 'failed' | 'waiting';

/**
 * Whether a checkout event means the purchase is paid. Completion alone is not payment: with a
 * delayed method (bank debits) `payment_status` stays `unpaid` until
 * `checkout.session.async_payment_succeeded`, or `async_payment_failed` ends it.
 */
export function checkoutPayment(eventType: string, session: { status: string | null; payment_status: string }) {
  if (eventType === 'checkout.session.async_payment_failed') return 'failed' satisfies CheckoutPayment;
  if (session.status === 'complete' && session.payment_status === 'paid') return 'paid' satisfies CheckoutPayment;
  return 'waiting' satisfies CheckoutPayment;
}
