import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { refundIssued } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { BillingDatabase, Subscription } from '../database.ts';
import { clockNow } from '../clock.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { type MoneyBack, moneyBackDecision } from './money-back.ts';
import {
  countPaidInvoices,
  firstPaidInvoice,
  hadMoneyBack,
  markIssued,
  paidEmailOf,
  pendingRefund,
  pendingRefundIds,
} from './refunds.repository.ts';

type Db = Kysely<BillingDatabase>;

export type RecordedMoneyBack =
  | { refundId: string; amountCents: number }
  | { refundId: null; reason: Exclude<MoneyBack, { refund: true }>['reason'] };

/**
 * Refunds in two steps, so money never moves inside a database transaction: the intent is
 * recorded (pending) with the change that causes it and committed; then the provider is called
 * with the refund's id as idempotency key, and only then is the refund marked issued and
 * announced. A crash or failure in between leaves it pending; `retryPending` calls again with the
 * same key, so the provider refunds once however often it is asked.
 */
export class RefundsService {
  constructor(private readonly deps: { db: Db; provider: PaymentProvider; logger: Logger }) {}

  /** In the caller's transaction, which ends the subscription when a refund is recorded. */
  async recordMoneyBack(
    tx: Db,
    sub: Subscription,
    now: Date,
    options: { cancelAtProvider: boolean; refundedBy?: string | undefined },
  ): Promise<RecordedMoneyBack> {
    const first = await firstPaidInvoice(tx, sub.id);
    const email = await paidEmailOf(tx, sub);
    const decision = moneyBackDecision({
      firstPayment: first
        ? { status: first.status, paidAt: first.paid_at ? new Date(first.paid_at) : null }
        : undefined,
      paidInvoices: await countPaidInvoices(tx, sub.id),
      usedBefore: await hadMoneyBack(tx, { userId: sub.user_id, email }),
      now,
    });
    if (!decision.refund || !first) return { refundId: null, reason: decision.refund ? 'no_payment' : decision.reason };
    const refundId = randomUUID();
    const inserted = await tx
      .insertInto('refunds')
      .values({
        id: refundId,
        invoice_id: first.id,
        subscription_id: sub.id,
        user_id: sub.user_id,
        email,
        amount_cents: first.amount_cents,
        status: 'pending',
        cancel_at_provider: options.cancelAtProvider,
        refunded_by: options.refundedBy ?? null,
      })
      .onConflict((oc) => oc.column('invoice_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return { refundId: null, reason: 'already_used' };
    return { refundId, amountCents: first.amount_cents };
  }

  /** Outside any transaction: ends the plan at the provider if still needed, refunds, then records it. */
  async issue(refundId: string): Promise<boolean> {
    const { db, provider, logger } = this.deps;
    const refund = await pendingRefund(db, refundId);
    if (!refund) return false;
    try {
      if (refund.cancel_at_provider && refund.provider_subscription_id)
        await provider.cancelNow({
          providerSubscriptionId: refund.provider_subscription_id,
          idempotencyKey: `cancel-${refund.id}`,
        });
      await provider.refund({
        providerPaymentId: refund.provider_payment_id,
        amountCents: refund.amount_cents,
        idempotencyKey: refund.id,
      });
    } catch (error) {
      await db
        .updateTable('refunds')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', refund.id)
        .execute();
      logger.warn({ err: error, refundId: refund.id }, 'refund not issued yet; it stays pending and is retried');
      return false;
    }
    try {
      return await db.transaction().execute(async (tx) => {
        const sub = refund.subscription_id
          ? await tx
              .selectFrom('subscriptions')
              .select(['user_id', 'org_id', 'test_clock_id'])
              .where('id', '=', refund.subscription_id)
              .executeTakeFirst()
          : undefined;
        // On the subscription's clock, as its invoices and cancellation are: a test clock's time,
        // so the refunds of a demo history fall on its days.
        const issuedAt = await clockNow(tx, sub?.test_clock_id);
        const done = await markIssued(tx, refund.id, issuedAt);
        if (!done) return false;
        const invoice = await tx
          .updateTable('invoices')
          .set({ status: 'refunded' })
          .where('id', '=', done.invoice_id)
          .returning(['number', 'currency', 'plan_code'])
          .executeTakeFirst();
        await addToOutbox(tx, refundIssued, {
          refundId: done.id,
          invoiceId: done.invoice_id,
          subscriptionId: done.subscription_id,
          userId: sub?.user_id ?? null,
          orgId: sub?.org_id ?? null,
          amountCents: done.amount_cents,
          issuedAt: issuedAt.toISOString(),
          ...(done.refunded_by ? { refundedBy: done.refunded_by } : {}),
          ...(invoice
            ? { currency: invoice.currency, planCode: invoice.plan_code, invoiceNumber: Number(invoice.number) }
            : {}),
        });
        return true;
      });
    } catch (error) {
      logger.warn(
        { err: error, refundId: refund.id },
        'refund made but not recorded yet; it stays pending and is retried',
      );
      return false;
    }
  }

  /** The periodic task: every refund still pending is asked for again, with the same idempotency key. */
  async retryPending(): Promise<number> {
    let issued = 0;
    for (const id of await pendingRefundIds(this.deps.db, 100)) if (await this.issue(id)) issued++;
    if (issued > 0) this.deps.logger.info({ issued }, 'pending refunds issued');
    return issued;
  }
}
