import type { Kysely } from 'kysely';
import { AppError, entitlingStatuses } from '@qw/contracts';
import type { BillingDatabase } from '../database.ts';
import { clockNow } from '../clock.ts';
import type { RecordedMoneyBack, RefundsService } from '../refunds/refunds.service.ts';
import { applySubscriptionState } from '../subscriptions/ledger.ts';

type Db = Kysely<BillingDatabase>;

/** Why the money-back guarantee does not cover the person's latest payment, as the operator reads it. */
const refusals: Record<Extract<RecordedMoneyBack, { refundId: null }>['reason'], string> = {
  no_payment: 'Nothing to refund: this plan has no paid payment.',
  outside_window: 'The payment is more than 7 days old: it is outside the money-back window.',
  renewed: 'The plan has renewed since its first payment: it is outside the money-back window.',
  already_used: 'This customer has had their money back once already.',
};

/**
 * An operator refunds a person's payment within the money-back window (issue #26), by the same
 * path as a cancel in the portal within 7 days: the first payment of their own plan in full, once
 * per customer, the plan ended at once, the refund recorded in this transaction with the operator
 * who asked (`refunded_by`) and issued after it (its mail goes as for any refund). Its
 * `billing.refund.issued` event names the operator, and identity writes the operators' audit line
 * from it: nothing between the refund and its audit can be lost. Anything else is 409 with the
 * reason, nothing changed.
 */
export async function refundLatestPayment(
  db: Db,
  refunds: RefundsService,
  userId: string,
  operatorId: string,
): Promise<{ refunded_cents: number; currency: string; plan: string; refund_id: string }> {
  const outcome = await db.transaction().execute(async (tx) => {
    const sub = await tx
      .selectFrom('subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('org_id', 'is', null)
      .where('status', 'in', [...entitlingStatuses])
      .orderBy('created_at', 'desc')
      .limit(1)
      .forUpdate()
      .executeTakeFirst();
    if (!sub) throw new AppError('conflict', 'Nothing to refund: this person has no plan of their own running.');
    const now = await clockNow(tx, sub.test_clock_id);
    const moneyBack = await refunds.recordMoneyBack(tx, sub, now, { cancelAtProvider: true, refundedBy: operatorId });
    if (moneyBack.refundId === null) throw new AppError('conflict', refusals[moneyBack.reason]);
    await applySubscriptionState(tx, sub, {
      status: 'canceled',
      periodStart: null,
      periodEnd: now,
      cancelAtPeriodEnd: false,
      observedAt: now,
    });
    const refunded = await tx
      .selectFrom('refunds')
      .innerJoin('invoices', 'invoices.id', 'refunds.invoice_id')
      .select('invoices.currency')
      .where('refunds.id', '=', moneyBack.refundId)
      .executeTakeFirstOrThrow();
    return {
      refundId: moneyBack.refundId,
      cents: moneyBack.amountCents,
      plan: sub.plan_code,
      currency: refunded.currency,
    };
  });
  await refunds.issue(outcome.refundId);
  return {
    refunded_cents: outcome.cents,
    currency: outcome.currency,
    plan: outcome.plan,
    refund_id: outcome.refundId,
  };
}
