import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Logger } from 'pino';
import { AppError } from '@qw/contracts';
import { CoalescedPasses } from '@qw/platform/passes';
import type { BillingDatabase } from '../database.ts';
import type { RefundsService } from '../refunds/refunds.service.ts';
import {
  applySubscriptionState,
  markCheckoutFailed,
  markCheckoutPaid,
  subscriptionForProviderId,
  upsertCustomer,
} from '../subscriptions/ledger.ts';
import { checkoutPayment } from './stripe-rules.ts';
import { applyStripeInvoice, applyStripeSubscription, idOf } from './stripe-ledger.ts';
import { claimEvent, dueEventIds, markFailed, markHandled, recordEvent } from './webhook-events.repository.ts';
import { webhookAlarmAttempts, webhookRetryDelaySeconds } from './webhook-retry-rules.ts';

type Tx = Kysely<BillingDatabase>;

/**
 * Stripe's webhook, recorded then handled. `receive` verifies the signature, stores the event once
 * per event id and answers: Stripe hears 200 in one insert, whatever applying it costs. `handle`
 * applies a stored event to the normalized ledger in one transaction with the mark that it was
 * applied, so a crash in between leaves it waiting and applying it twice is impossible; a failure
 * is retried with backoff (`handleDue`, woken after each new event and on billing's timer). Events
 * may come twice or out of order: ids and event times keep the result right. Money moves only after
 * the transaction: a refund is recorded with the change and issued after commit, its id the
 * idempotency key (and `retryPending` asks again if the process died in between).
 */
export class StripeWebhookService {
  private readonly passes = new CoalescedPasses(() => this.applyDue());

  constructor(
    private readonly deps: {
      db: Kysely<BillingDatabase>;
      stripe: Stripe;
      webhookSecret: string;
      refunds: RefundsService;
      logger: Logger;
    },
  ) {}

  async receive(payload: string, signature: string): Promise<{ received: boolean; duplicate: boolean }> {
    let event: Stripe.Event;
    try {
      event = this.deps.stripe.webhooks.constructEvent(payload, signature, this.deps.webhookSecret);
    } catch {
      throw new AppError('bad_request', 'The webhook signature does not match.');
    }
    const fresh = await recordEvent(this.deps.db, { id: event.id, type: event.type, payload: JSON.stringify(event) });
    // Committed: applied next, after the answer (the answer never waits for it).
    if (fresh) void this.handleDue();
    return { received: true, duplicate: !fresh };
  }

  /**
   * Applies every stored event that is due, one transaction each (one failing holds up no other).
   * Never rejects; a pass asked for during a pass runs once more after it, for what it did not see.
   */
  handleDue(): Promise<number> {
    return this.passes.run().catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'stripe events not applied yet; will retry');
      return 0;
    });
  }

  private async applyDue(): Promise<number> {
    let applied = 0;
    for (const id of await dueEventIds(this.deps.db, 50)) if (await this.handle(id)) applied++;
    return applied;
  }

  /** Applies one stored event unless it was applied already or another worker holds it; true if this did. */
  async handle(eventId: string): Promise<boolean> {
    let attempts = 0;
    let type = 'unknown';
    let refundId: string | null = null;
    try {
      const applied = await this.deps.db.transaction().execute(async (tx) => {
        const row = await claimEvent(tx, eventId);
        if (!row) return false;
        attempts = row.attempts;
        type = row.type;
        refundId = await this.apply(tx, row.payload as Stripe.Event);
        await markHandled(tx, eventId);
        return true;
      });
      if (!applied) return false;
    } catch (error) {
      attempts += 1;
      const retryInSeconds = webhookRetryDelaySeconds(attempts);
      // The id and type only: the event itself names the buyer.
      const log = { err: error, eventId, type, attempts, retryInSeconds };
      if (attempts >= webhookAlarmAttempts) this.deps.logger.error(log, 'stripe event keeps failing; will retry');
      else this.deps.logger.warn(log, 'stripe event not applied; will retry');
      const reason = String((error as Error)?.message ?? error).slice(0, 500);
      await markFailed(this.deps.db, eventId, { attempts, retryInSeconds, reason });
      return false;
    }
    if (refundId) await this.deps.refunds.issue(refundId);
    return true;
  }

  /** Applies one event; answers the id of a refund it recorded, for `handle` to issue after commit. */
  private async apply(tx: Tx, event: Stripe.Event): Promise<string | null> {
    const observedAt = new Date(event.created * 1000);
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
      case 'checkout.session.async_payment_failed':
        await this.checkoutEvent(tx, event.type, event.data.object, observedAt);
        return null;
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
        return this.subscriptionEvent(tx, event.type, event.data.object, observedAt);
      case 'invoice.paid':
      case 'invoice.payment_succeeded':
      case 'invoice.payment_failed':
        await applyStripeInvoice(tx, event.type, event.data.object, observedAt);
        return null;
      default:
        this.deps.logger.debug({ type: event.type }, 'stripe event ignored');
        return null;
    }
  }

  /**
   * A plan canceled at Stripe (now, or at the period end) within 7 days of its first payment gets
   * the money back once per customer, and then it ends now, here and at Stripe: a refund that left
   * the plan running to the period end was a free month, again and again.
   */
  private async subscriptionEvent(
    tx: Tx,
    type: 'customer.subscription.created' | 'customer.subscription.updated' | 'customer.subscription.deleted',
    object: Stripe.Subscription,
    observedAt: Date,
  ): Promise<string | null> {
    const { sub, applied, status } = await applyStripeSubscription(tx, type, object, observedAt);
    const ending = status === 'canceled' || Boolean(object.cancel_at_period_end);
    if (!applied || !ending) return null;
    const current = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
    const moneyBack = await this.deps.refunds.recordMoneyBack(tx, current, observedAt, {
      cancelAtProvider: status !== 'canceled',
    });
    if (!moneyBack.refundId) return null;
    if (current.status !== 'canceled')
      await applySubscriptionState(tx, current, {
        status: 'canceled',
        periodStart: null,
        periodEnd: observedAt,
        cancelAtPeriodEnd: false,
        observedAt,
      });
    return moneyBack.refundId;
  }

  /** Also used when the buyer is back before the webhook: the session is fetched and applied the same way. */
  async checkoutEvent(tx: Tx, type: string, object: Stripe.Checkout.Session, observedAt: Date): Promise<void> {
    const session = await tx
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', object.id)
      .forUpdate()
      .executeTakeFirst();
    if (!session) return;
    const payment = checkoutPayment(type, object);
    if (payment === 'failed') {
      await markCheckoutFailed(tx, session);
      return;
    }
    const subscriptionId = idOf(object.subscription);
    const email = (object.customer_details?.email ?? object.customer_email ?? '').toLowerCase();
    if (payment !== 'paid' || !subscriptionId || !email) return;
    const customerId = await upsertCustomer(tx, {
      provider: 'stripe',
      providerCustomerId: idOf(object.customer),
      email,
    });
    const sub = await subscriptionForProviderId(tx, {
      provider: 'stripe',
      providerSubscriptionId: subscriptionId,
      planCode: session.plan_code,
      status: 'active',
    });
    if (sub.status === 'incomplete')
      await tx.updateTable('subscriptions').set({ status: 'active' }).where('id', '=', sub.id).execute();
    await markCheckoutPaid(tx, session, { email, customerId, subscriptionId: sub.id, paidAt: observedAt });
  }

  /** The buyer came back before the webhook: ask Stripe about the session and apply what it says. */
  async settleFromApi(sessionId: string): Promise<void> {
    const object = await this.deps.stripe.checkout.sessions.retrieve(sessionId);
    if (checkoutPayment('checkout.session.completed', object) !== 'paid') return;
    await this.deps.db
      .transaction()
      .execute((tx) => this.checkoutEvent(tx, 'checkout.session.completed', object, new Date()));
  }
}
