import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Logger } from 'pino';
import { AppError, findPlan, plans } from '@qw/contracts';
import type { BillingDatabase } from '../database.ts';
import { applySubscriptionState, markCheckoutPaid, recordInvoiceFailed, recordInvoicePaid, subscriptionForProviderId, upsertCustomer } from '../subscriptions/ledger.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';

type Tx = Kysely<BillingDatabase>;
const fromUnix = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000) : null);
const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id ?? null);

function planFromPrice(priceId: string | null | undefined, metadataPlan: string | null | undefined): string {
  if (metadataPlan && findPlan(metadataPlan)) return metadataPlan;
  return plans.find((plan) => plan.priceId === priceId)?.code ?? 'unknown';
}

/** Stripe's statuses in our words: trialing counts as active, unpaid and incomplete_expired as ended. */
function normalizeStatus(status: string): string {
  if (status === 'trialing') return 'active';
  if (status === 'unpaid' || status === 'incomplete_expired') return 'canceled';
  return status;
}

/**
 * Verifies Stripe's signature, records each event id once, and applies it to the normalized
 * ledger. Events may come twice or out of order: ids and event times keep the result right.
 */
export class StripeWebhookService {
  constructor(private readonly deps: { db: Kysely<BillingDatabase>; stripe: Stripe; webhookSecret: string; subscriptions: SubscriptionsService; logger: Logger }) {}

  async receive(payload: string, signature: string): Promise<{ received: boolean; duplicate: boolean }> {
    let event: Stripe.Event;
    try {
      event = this.deps.stripe.webhooks.constructEvent(payload, signature, this.deps.webhookSecret);
    } catch {
      throw new AppError('bad_request', 'The webhook signature does not match.');
    }
    return this.deps.db.transaction().execute(async (tx) => {
      const fresh = await tx.insertInto('webhook_events').values({ id: event.id, type: event.type }).onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst();
      if (!fresh) return { received: true, duplicate: true };
      await this.apply(tx, event);
      return { received: true, duplicate: false };
    });
  }

  private async apply(tx: Tx, event: Stripe.Event): Promise<void> {
    const observedAt = new Date(event.created * 1000);
    switch (event.type) {
      case 'checkout.session.completed':
        await this.checkoutCompleted(tx, event.data.object, observedAt);
        return;
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const object = event.data.object;
        const item = object.items?.data?.[0] as (Stripe.SubscriptionItem & { current_period_start?: number; current_period_end?: number }) | undefined;
        const legacy = object as unknown as { current_period_start?: number; current_period_end?: number };
        const sub = await subscriptionForProviderId(tx, { provider: 'stripe', providerSubscriptionId: object.id, planCode: planFromPrice(item?.price?.id, object.metadata?.plan_code) });
        await applySubscriptionState(tx, sub, {
          status: event.type === 'customer.subscription.deleted' ? 'canceled' : normalizeStatus(object.status),
          periodStart: fromUnix(item?.current_period_start ?? legacy.current_period_start),
          periodEnd: fromUnix(item?.current_period_end ?? legacy.current_period_end),
          cancelAtPeriodEnd: Boolean(object.cancel_at_period_end),
          observedAt,
        });
        if (object.cancel_at_period_end || event.type === 'customer.subscription.deleted') {
          const current = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
          await this.deps.subscriptions.refundFirstPaymentIfInWindow(tx, current, observedAt);
        }
        return;
      }
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed': {
        const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null; payment_intent?: string | { id: string } | null };
        const subscriptionId = idOf(invoice.subscription) ?? idOf(invoice.parent?.subscription_details?.subscription as string | undefined);
        if (!subscriptionId) return;
        const line = invoice.lines?.data?.[0] as (Stripe.InvoiceLineItem & { price?: { id: string } | null }) | undefined;
        const sub = await subscriptionForProviderId(tx, { provider: 'stripe', providerSubscriptionId: subscriptionId, planCode: planFromPrice(line?.price?.id ?? idOf(line?.pricing?.price_details?.price as string | { id: string } | undefined), invoice.metadata?.plan_code), status: 'active' });
        const facts = {
          providerInvoiceId: invoice.id ?? null,
          amountCents: event.type === 'invoice.payment_failed' ? invoice.amount_due : invoice.amount_paid,
          currency: invoice.currency,
          periodStart: fromUnix(line?.period?.start) ?? observedAt,
          periodEnd: fromUnix(line?.period?.end) ?? observedAt,
        };
        if (event.type === 'invoice.payment_failed') {
          await recordInvoiceFailed(tx, sub, { ...facts, attemptedAt: observedAt });
        } else {
          await recordInvoicePaid(tx, sub, { ...facts, paidAt: fromUnix(invoice.status_transitions?.paid_at) ?? observedAt, providerPaymentId: idOf(invoice.payment_intent) });
        }
        return;
      }
      default:
        this.deps.logger.debug({ type: event.type }, 'stripe event ignored');
    }
  }

  /** Also used when the buyer is back before the webhook: the session is fetched and applied the same way. */
  async checkoutCompleted(tx: Tx, object: Stripe.Checkout.Session, observedAt: Date): Promise<void> {
    const session = await tx.selectFrom('checkout_sessions').selectAll().where('id', '=', object.id).forUpdate().executeTakeFirst();
    const subscriptionId = idOf(object.subscription);
    const email = (object.customer_details?.email ?? object.customer_email ?? '').toLowerCase();
    if (!session || !subscriptionId || !email || object.status !== 'complete') return;
    const customerId = await upsertCustomer(tx, { provider: 'stripe', providerCustomerId: idOf(object.customer), email });
    const sub = await subscriptionForProviderId(tx, { provider: 'stripe', providerSubscriptionId: subscriptionId, planCode: session.plan_code, status: 'active' });
    if (sub.status === 'incomplete') await tx.updateTable('subscriptions').set({ status: 'active' }).where('id', '=', sub.id).execute();
    await markCheckoutPaid(tx, session, { email, customerId, subscriptionId: sub.id, paidAt: observedAt });
  }

  /** The buyer came back before the webhook: ask Stripe about the session and apply what it says. */
  async settleFromApi(sessionId: string): Promise<void> {
    const object = await this.deps.stripe.checkout.sessions.retrieve(sessionId);
    if (object.status !== 'complete') return;
    await this.deps.db.transaction().execute((tx) => this.checkoutCompleted(tx, object, new Date()));
  }
}
