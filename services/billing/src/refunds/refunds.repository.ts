import type { Kysely } from 'kysely';
import type { BillingDatabase, Refund, Subscription } from '../database.ts';

type Db = Kysely<BillingDatabase>;

export async function firstPaidInvoice(db: Db, subscriptionId: string) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('paid_at', 'is not', null)
    .orderBy('paid_at', 'asc')
    .limit(1)
    .executeTakeFirst();
}

export async function countPaidInvoices(db: Db, subscriptionId: string): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'paid')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The e-mail the subscription was paid with (its checkout's), else its customer's. */
export async function paidEmailOf(db: Db, sub: Subscription): Promise<string | null> {
  const checkout = await db
    .selectFrom('checkout_sessions')
    .select('email')
    .where('subscription_id', '=', sub.id)
    .where('email', 'is not', null)
    .executeTakeFirst();
  if (checkout?.email) return checkout.email;
  if (!sub.customer_id) return null;
  const customer = await db
    .selectFrom('customers')
    .select('email')
    .where('id', '=', sub.customer_id)
    .executeTakeFirst();
  return customer?.email ?? null;
}

export async function hadMoneyBack(db: Db, customer: { userId: string | null; email: string | null }) {
  if (!customer.userId && !customer.email) return false;
  const row = await db
    .selectFrom('refunds')
    .select('id')
    .where((eb) =>
      eb.or([
        ...(customer.userId ? [eb('user_id', '=', customer.userId)] : []),
        ...(customer.email ? [eb('email', '=', customer.email)] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** A pending refund with what the provider needs: the payment to refund and the subscription to end. */
export async function pendingRefund(db: Db, refundId: string) {
  return db
    .selectFrom('refunds')
    .innerJoin('invoices', 'invoices.id', 'refunds.invoice_id')
    .leftJoin('subscriptions', 'subscriptions.id', 'refunds.subscription_id')
    .selectAll('refunds')
    .select(['invoices.provider_payment_id', 'subscriptions.provider_subscription_id'])
    .where('refunds.id', '=', refundId)
    .where('refunds.status', '=', 'pending')
    .executeTakeFirst();
}

export async function pendingRefundIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('refunds')
    .select('id')
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Marks it issued unless someone else did first; answers the row only to the one that did. */
export async function markIssued(db: Db, refundId: string, at: Date): Promise<Refund | undefined> {
  return db
    .updateTable('refunds')
    .set({ status: 'issued', issued_at: at })
    .where('id', '=', refundId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
