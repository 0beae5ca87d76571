import type { Kysely } from 'kysely';
import { AppError, cardText } from '@qw/contracts';
import type { BillingDatabase } from '../database.ts';
import { clockNow } from '../clock.ts';
import { testCardOf, testCards } from '../providers/test-provider.ts';
import { recordInvoicePaid, rememberCard } from '../subscriptions/ledger.ts';

type Db = Kysely<BillingDatabase>;

/**
 * The test provider's "Update card": the subscription renews with the new card from now on, and
 * a renewal that failed is paid with it at once (as Stripe retries an open invoice when the card
 * changes): each failed invoice gives way to a paid one for the same period, with its receipt,
 * and a past-due plan is active again. A card that fails renewals settles nothing.
 */
export async function changeTestCard(
  db: Db,
  subscriptionId: string,
  input: string,
): Promise<{ card: string; settled_cents: number }> {
  const { brand, last4 } = testCardOf(input);
  const card = { brand, last4 };
  return db.transaction().execute(async (tx) => {
    const sub = await tx
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .forUpdate()
      .executeTakeFirst();
    if (!sub) throw new AppError('not_found', 'Subscription not found.');
    if (sub.status === 'canceled')
      throw new AppError('conflict', 'This plan has ended, so it has no card to update. Choose a plan to start again.');
    await rememberCard(tx, sub.id, card);
    let settled = 0;
    if (sub.status === 'past_due' && card.last4 !== testCards.renewalsFail.slice(-4)) {
      const failed = await tx
        .selectFrom('invoices')
        .selectAll()
        .where('subscription_id', '=', sub.id)
        .where('status', '=', 'failed')
        .orderBy('period_start')
        .execute();
      const paidAt = await clockNow(tx, sub.test_clock_id);
      for (const invoice of failed) {
        await tx.deleteFrom('invoices').where('id', '=', invoice.id).execute();
        const current = await tx
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', sub.id)
          .executeTakeFirstOrThrow();
        await recordInvoicePaid(tx, current, {
          providerInvoiceId: null,
          planCode: invoice.plan_code,
          amountCents: invoice.amount_cents,
          currency: invoice.currency,
          periodStart: new Date(invoice.period_start),
          periodEnd: new Date(invoice.period_end),
          paidAt,
          providerPaymentId: null,
          reason: (invoice.reason as 'checkout' | 'renewal' | 'plan_change' | null) ?? 'renewal',
          fromPlanCode: invoice.from_plan_code,
          card,
        });
        settled += invoice.amount_cents;
      }
    }
    return { card: cardText(card.brand, card.last4)!, settled_cents: settled };
  });
}
