import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AppError, refundIssued, requireUserId, refundWindowDays, type BillingOverview, type Caller } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { BillingDatabase, Subscription } from '../database.ts';
import { addMonths, billingNow } from '../clock.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { applySubscriptionState, recordInvoicePaid, subscriptionState } from './ledger.ts';

const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null);

/** Plans, invoices, Manage Billing, renewals of test subscriptions, cancellation and the 7-day refund. */
export class SubscriptionsService {
  constructor(private readonly deps: { db: Kysely<BillingDatabase>; provider: PaymentProvider; publicUrl: string; logger: Logger }) {}

  /** The current plan and the invoices, newest period first: a person's own, or an organization's they own. */
  async overview(caller: Caller, orgId?: string): Promise<BillingOverview> {
    const userId = requireUserId(caller);
    const { db } = this.deps;
    let subs = db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId);
    subs = orgId ? subs.where('org_id', '=', orgId) : subs.where('org_id', 'is', null);
    const all = await subs.orderBy('created_at', 'desc').execute();
    const current = all.find((s) => s.status !== 'canceled') ?? all[0];
    const invoices = all.length === 0 ? [] : await db.selectFrom('invoices').selectAll()
      .where('subscription_id', 'in', all.map((s) => s.id)).orderBy('period_start', 'desc').execute();
    return {
      provider: this.deps.provider.name,
      subscription: current ? {
        id: current.id, plan: current.plan_code, status: current.status, renews_at: current.status === 'canceled' ? null : iso(current.current_period_end),
        cancel_at_period_end: current.cancel_at_period_end, org_id: current.org_id,
      } : null,
      invoices: invoices.map((invoice) => ({
        id: invoice.id, amount_cents: invoice.amount_cents, currency: invoice.currency, status: invoice.status,
        period_start: iso(invoice.period_start)!, period_end: iso(invoice.period_end)!, paid_at: iso(invoice.paid_at),
      })),
    };
  }

  async manageUrl(caller: Caller, returnPath: string, orgId?: string): Promise<{ url: string }> {
    const userId = requireUserId(caller);
    const returnUrl = new URL(returnPath, this.deps.publicUrl).toString();
    if (this.deps.provider.name === 'test') return { url: await this.deps.provider.portalUrl({ providerCustomerId: null, returnUrl }) };
    const customer = await this.deps.db.selectFrom('subscriptions').innerJoin('customers', 'customers.id', 'subscriptions.customer_id')
      .select('customers.provider_customer_id').where('subscriptions.user_id', '=', userId)
      .where((eb) => (orgId ? eb('subscriptions.org_id', '=', orgId) : eb('subscriptions.org_id', 'is', null)))
      .orderBy('subscriptions.created_at', 'desc').executeTakeFirst();
    if (!customer) throw new AppError('not_found', 'There is no subscription to manage yet. Choose a plan on the pricing page.');
    return { url: await this.deps.provider.portalUrl({ providerCustomerId: customer.provider_customer_id, returnUrl }) };
  }

  /**
   * Cancel from the test portal. Within 7 days of the first payment: refunded in full, once,
   * and ended at once. Later: it runs to the end of the paid period.
   */
  async cancel(caller: Caller, subscriptionId: string) {
    const userId = requireUserId(caller);
    return this.deps.db.transaction().execute(async (tx) => {
      const sub = await tx.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).where('user_id', '=', userId).forUpdate().executeTakeFirst();
      if (!sub) throw new AppError('not_found', 'Subscription not found.');
      if (sub.status === 'canceled') return { status: sub.status, refunded_cents: 0, cancel_at_period_end: false };
      const now = await billingNow(tx);
      const refunded = await this.refundFirstPaymentIfInWindow(tx, sub, now);
      if (refunded > 0) {
        await applySubscriptionState(tx, sub, { status: 'canceled', periodStart: null, periodEnd: now, cancelAtPeriodEnd: false, observedAt: now });
        return { status: 'canceled', refunded_cents: refunded, cancel_at_period_end: false };
      }
      await applySubscriptionState(tx, sub, { status: sub.status, periodStart: null, periodEnd: null, cancelAtPeriodEnd: true, observedAt: now });
      return { status: sub.status, refunded_cents: 0, cancel_at_period_end: true };
    });
  }

  /** The money-back guarantee: the first paid invoice, in full, if it was paid less than 7 days ago; never twice. */
  async refundFirstPaymentIfInWindow(tx: Kysely<BillingDatabase>, sub: Subscription, now: Date): Promise<number> {
    const first = await tx.selectFrom('invoices').selectAll().where('subscription_id', '=', sub.id).where('paid_at', 'is not', null)
      .orderBy('paid_at', 'asc').limit(1).executeTakeFirst();
    if (!first || first.status !== 'paid' || !first.paid_at) return 0;
    if (now.getTime() - new Date(first.paid_at).getTime() > refundWindowDays * 86_400_000) return 0;
    const paidInvoices = await tx.selectFrom('invoices').select('id').where('subscription_id', '=', sub.id).where('status', '=', 'paid').execute();
    if (paidInvoices.length !== 1) return 0;
    const refundId = randomUUID();
    const inserted = await tx.insertInto('refunds').values({ id: refundId, invoice_id: first.id, amount_cents: first.amount_cents })
      .onConflict((oc) => oc.column('invoice_id').doNothing()).returning('id').executeTakeFirst();
    if (!inserted) return 0;
    await this.deps.provider.refund({ providerPaymentId: first.provider_payment_id, amountCents: first.amount_cents });
    await tx.updateTable('invoices').set({ status: 'refunded' }).where('id', '=', first.id).execute();
    await addToOutbox(tx, refundIssued, {
      refundId, invoiceId: first.id, subscriptionId: sub.id, userId: sub.user_id, orgId: sub.org_id, amountCents: first.amount_cents, issuedAt: now.toISOString(),
    });
    return first.amount_cents;
  }

  /**
   * Renews test-provider subscriptions whose period ended (one invoice per month missed), and
   * ends those set to cancel at period end. Stripe renews its own and tells us by webhook.
   */
  async renewDue(): Promise<number> {
    const { db } = this.deps;
    const now = await billingNow(db);
    const due = await db.selectFrom('subscriptions').select('id').where('provider', '=', 'test')
      .where('status', 'in', ['active', 'past_due']).where('current_period_end', '<=', now).execute();
    let invoices = 0;
    for (const { id } of due) {
      invoices += await db.transaction().execute(async (tx) => {
        let count = 0;
        for (;;) {
          const sub = await tx.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
          const end = sub.current_period_end ? new Date(sub.current_period_end) : null;
          if (!end || end > now || sub.status === 'canceled') return count;
          if (sub.cancel_at_period_end) {
            await applySubscriptionState(tx, sub, { status: 'canceled', periodStart: null, periodEnd: null, cancelAtPeriodEnd: false, observedAt: end });
            return count;
          }
          const plan = await tx.selectFrom('invoices').select(['amount_cents', 'currency']).where('subscription_id', '=', sub.id).orderBy('period_start', 'desc').limit(1).executeTakeFirst();
          await recordInvoicePaid(tx, sub, {
            providerInvoiceId: null, amountCents: plan?.amount_cents ?? 0, currency: plan?.currency ?? 'USD', periodStart: end, periodEnd: addMonths(end), paidAt: end, providerPaymentId: null,
          });
          count++;
        }
      });
    }
    if (invoices > 0) this.deps.logger.info({ invoices }, 'test subscriptions renewed');
    return invoices;
  }

  stateOf(sub: Subscription) {
    return subscriptionState(sub);
  }
}
