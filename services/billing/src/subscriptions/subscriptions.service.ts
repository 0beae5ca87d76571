import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  cardText,
  entitlingStatuses,
  invoiceDescriptionText,
  invoiceNumberText,
  findPlan,
  type ActivePlan,
  type BillingOverview,
  type CancelOutcome,
  type Receipt,
  type SubscriptionView,
  safeNextPath,
} from '@qw/contracts';
import type { BillingDatabase, Subscription } from '../database.ts';
import { clockNow } from '../clock.ts';
import { dueRenewals } from './renewals.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import type { RefundsService } from '../refunds/refunds.service.ts';
import {
  applySubscriptionState,
  monthlyCentsOf,
  publishSubscriptionUpdated,
  recordInvoiceFailed,
  recordInvoicePaid,
} from './ledger.ts';
import { testCards } from '../providers/test-provider.ts';
import { takeRateLimits } from '@qw/platform/limits';
import { accountActionCheck } from './account-limits.ts';
import { receiptBillingDetails } from './billing-details.ts';

/** Whose billing: a person's own plan, or an organization's (its owners and admins). */
export type BillingOwner = { userId: string } | { orgId: string };

const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null);

/** What an invoice is for, from why billing recorded it (issue #26). */
function describeInvoice(invoice: {
  reason: string | null;
  plan_code: string;
  from_plan_code: string | null;
  period_start: Date | string;
  period_end: Date | string;
}): string {
  const plan = findPlan(invoice.plan_code);
  const from = invoice.from_plan_code ? findPlan(invoice.from_plan_code) : undefined;
  return invoiceDescriptionText({
    reason: invoice.reason,
    plan_name: plan?.name ?? invoice.plan_code,
    price_cents: plan?.priceCents ?? 0,
    from: from ? { name: from.name, priceCents: from.priceCents } : null,
    period_start: invoice.period_start,
    period_end: invoice.period_end,
  });
}

/** A subscription as the Billing page (and a plan change's answer) shows it. */
export function subscriptionView(sub: Subscription): SubscriptionView {
  return {
    id: sub.id,
    plan: sub.plan_code,
    status: sub.status,
    renews_at: sub.status === 'canceled' ? null : iso(sub.current_period_end),
    cancel_at_period_end: sub.cancel_at_period_end,
    org_id: sub.org_id,
    pending_plan: sub.pending_plan_code,
    card: cardText(sub.card_brand, sub.card_last4),
  };
}

/**
 * Renews one test-provider subscription for every period that ended on its clock, in the caller's
 * transaction: each renewal charges the subscription's price per month, after moving it to a
 * downgrade chosen for that moment (announced as taking effect at the renewal). One set to cancel
 * at the period end ends instead. Answers how many invoices it recorded.
 */
export async function renewOwed(tx: Kysely<BillingDatabase>, id: string, realNow: Date): Promise<number> {
  const sub = await tx
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (sub.provider !== 'test' || (sub.status !== 'active' && sub.status !== 'past_due')) return 0;
  const now = await clockNow(tx, sub.test_clock_id, realNow);
  const owed = dueRenewals(
    {
      periodEnd: sub.current_period_end ? new Date(sub.current_period_end) : null,
      cancelAtPeriodEnd: sub.cancel_at_period_end,
    },
    now,
  );
  if (owed.endedAt) {
    await applySubscriptionState(tx, sub, {
      status: 'canceled',
      periodStart: null,
      periodEnd: null,
      cancelAtPeriodEnd: false,
      observedAt: owed.endedAt,
    });
    return 0;
  }
  const last = await tx
    .selectFrom('invoices')
    .select('currency')
    .where('subscription_id', '=', sub.id)
    .orderBy('period_start', 'desc')
    .limit(1)
    .executeTakeFirst();
  for (const period of owed.periods) {
    if (sub.card_last4 === testCards.renewalsFail.slice(-4)) {
      // The test card that pays the checkout and then declines: the renewal fails once per
      // period (past due, as at Stripe while it retries), and nothing further is charged.
      const failedAlready = await tx
        .selectFrom('invoices')
        .select('id')
        .where('subscription_id', '=', sub.id)
        .where('status', '=', 'failed')
        .where('period_start', '=', period.start)
        .executeTakeFirst();
      if (!failedAlready)
        await recordInvoiceFailed(tx, sub, {
          providerInvoiceId: null,
          amountCents: monthlyCentsOf(sub),
          currency: last?.currency ?? 'USD',
          periodStart: period.start,
          periodEnd: period.end,
          attemptedAt: period.start,
          reason: 'renewal',
        });
      return 0;
    }
    const before = await tx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const downgrade = before.pending_plan_code ? findPlan(before.pending_plan_code) : undefined;
    if (downgrade)
      await tx
        .updateTable('subscriptions')
        .set({ plan_code: downgrade.code, monthly_cents: downgrade.priceCents, pending_plan_code: null })
        .where('id', '=', id)
        .execute();
    const current = await tx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await recordInvoicePaid(tx, current, {
      providerInvoiceId: null,
      amountCents: monthlyCentsOf(current),
      currency: last?.currency ?? 'USD',
      periodStart: period.start,
      periodEnd: period.end,
      paidAt: period.start,
      providerPaymentId: null,
      reason: 'renewal',
    });
    if (downgrade) await publishSubscriptionUpdated(tx, id, period.start);
  }
  return owed.periods.length;
}

/** Plans, invoices, Manage Billing, renewals of test subscriptions, cancellation and the 7-day refund. */
export class SubscriptionsService {
  constructor(
    private readonly deps: {
      db: Kysely<BillingDatabase>;
      provider: PaymentProvider;
      refunds: RefundsService;
      publicUrl: string;
      logger: Logger;
    },
  ) {}

  /**
   * The current plan and the invoices, newest period first: a person's own, or an organization's
   * (the caller's right to see it is checked first, with identity: `organizationBillingRefusal`).
   */
  async overview(owner: BillingOwner): Promise<BillingOverview> {
    const { db } = this.deps;
    let subs = db.selectFrom('subscriptions').selectAll();
    subs =
      'orgId' in owner
        ? subs.where('org_id', '=', owner.orgId)
        : subs.where('user_id', '=', owner.userId).where('org_id', 'is', null);
    const all = await subs.orderBy('created_at', 'desc').execute();
    const current = all.find((s) => s.status !== 'canceled') ?? all[0];
    const invoices =
      all.length === 0
        ? []
        : await db
            .selectFrom('invoices')
            .selectAll()
            .where(
              'subscription_id',
              'in',
              all.map((s) => s.id),
            )
            .orderBy('period_start', 'desc')
            .execute();
    return {
      provider: this.deps.provider.name,
      subscription: current ? subscriptionView(current) : null,
      invoices: invoices.map((invoice) => ({
        id: invoice.id,
        amount_cents: invoice.amount_cents,
        currency: invoice.currency,
        status: invoice.status,
        period_start: iso(invoice.period_start)!,
        period_end: iso(invoice.period_end)!,
        paid_at: iso(invoice.paid_at),
        number: invoiceNumberText(invoice.number),
        description: describeInvoice(invoice),
      })),
    };
  }

  /**
   * One invoice as its receipt shows it. `mayRead` says whether the caller may see an invoice of
   * that owner (its person; an organization's owners and admins); anyone else gets the same 404 as
   * an invoice that does not exist.
   */
  /** A paid invoice's description and billing details, for its mailed receipt (identity asks). */
  async receiptMailFacts(invoiceId: string) {
    const { db } = this.deps;
    const invoice = await db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
    if (!invoice) throw new AppError('not_found', 'Invoice not found.');
    return { description: describeInvoice(invoice), billing_details: await receiptBillingDetails(db, invoice) };
  }

  async receipt(
    invoiceId: string,
    mayRead: (owner: { userId: string | null; orgId: string | null }) => Promise<boolean>,
  ): Promise<Receipt> {
    const { db } = this.deps;
    const notFound = new AppError('not_found', 'Invoice not found.');
    const invoice = await db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
    if (!invoice || !(await mayRead({ userId: invoice.user_id, orgId: invoice.org_id }))) throw notFound;
    const buyer = invoice.subscription_id
      ? await db
          .selectFrom('subscriptions')
          .innerJoin('customers', 'customers.id', 'subscriptions.customer_id')
          .select('customers.email')
          .where('subscriptions.id', '=', invoice.subscription_id)
          .executeTakeFirst()
      : undefined;
    const refunds = await db
      .selectFrom('refunds')
      .select(['id', 'amount_cents', 'status', 'issued_at'])
      .where('invoice_id', '=', invoice.id)
      .orderBy('created_at')
      .execute();
    return {
      id: invoice.id,
      number: invoiceNumberText(invoice.number),
      status: invoice.status,
      plan_code: invoice.plan_code,
      plan_name: findPlan(invoice.plan_code)?.name ?? invoice.plan_code,
      description: describeInvoice(invoice),
      amount_cents: invoice.amount_cents,
      currency: invoice.currency,
      period_start: iso(invoice.period_start)!,
      period_end: iso(invoice.period_end)!,
      paid_at: iso(invoice.paid_at),
      issued_at: iso(invoice.paid_at ?? invoice.created_at)!,
      buyer_email: buyer?.email ?? null,
      org_id: invoice.org_id,
      card: cardText(invoice.card_brand, invoice.card_last4),
      billing_details: await receiptBillingDetails(db, invoice),
      refunds: refunds.map((refund) => ({
        id: refund.id,
        amount_cents: refund.amount_cents,
        status: refund.status,
        issued_at: iso(refund.issued_at),
      })),
    };
  }

  /** The billing portal's address for the owner's plan; `accountId` is who asks (whose limit it counts against). */
  async manageUrl(owner: BillingOwner, returnPath: string, accountId: string): Promise<{ url: string }> {
    const safe = safeNextPath(returnPath);
    if (!safe)
      throw new AppError('validation_failed', 'The return path must be a path of this site.', { field: 'return' });
    await takeRateLimits(this.deps.db, [accountActionCheck('manage', accountId)]);
    const returnUrl = new URL(safe, this.deps.publicUrl).toString();
    if (this.deps.provider.name === 'test')
      return { url: await this.deps.provider.portalUrl({ providerCustomerId: null, returnUrl }) };
    const customer = await this.deps.db
      .selectFrom('subscriptions')
      .innerJoin('customers', 'customers.id', 'subscriptions.customer_id')
      .select('customers.provider_customer_id')
      .where((eb) =>
        'orgId' in owner
          ? eb('subscriptions.org_id', '=', owner.orgId)
          : eb.and([eb('subscriptions.user_id', '=', owner.userId), eb('subscriptions.org_id', 'is', null)]),
      )
      .orderBy('subscriptions.created_at', 'desc')
      .executeTakeFirst();
    if (!customer) throw new AppError('not_found', 'There is no subscription to manage yet. Choose a plan in Billing.');
    return {
      url: await this.deps.provider.portalUrl({ providerCustomerId: customer.provider_customer_id, returnUrl }),
    };
  }

  /** The owner's entitling subscription now (newest first): a person's own plan, or an organization's. */
  async activePlan(owner: { user_id?: string | undefined; org_id?: string | undefined }): Promise<ActivePlan | null> {
    if (Boolean(owner.user_id) === Boolean(owner.org_id))
      throw new AppError('validation_failed', 'Name exactly one owner: user_id or org_id.');
    let query = this.deps.db
      .selectFrom('subscriptions')
      .select(['plan_code', 'status', 'id as subscription_id'])
      .where('status', 'in', [...entitlingStatuses]);
    query = owner.org_id
      ? query.where('org_id', '=', owner.org_id)
      : query.where('user_id', '=', owner.user_id ?? '').where('org_id', 'is', null);
    return (await query.orderBy('created_at', 'desc').limit(1).executeTakeFirst()) ?? null;
  }

  /** Each person's own entitling plan now (newest first), or null: the operator console's users page. */
  async personalPlansOf(userIds: readonly string[]): Promise<Array<{ user_id: string; plan_code: string | null }>> {
    const unique = [...new Set(userIds)];
    if (unique.length === 0) return [];
    const rows = await this.deps.db
      .selectFrom('subscriptions')
      .select(['user_id', 'plan_code'])
      .distinctOn('user_id')
      .where('user_id', 'in', unique)
      .where('org_id', 'is', null)
      .where('status', 'in', [...entitlingStatuses])
      .orderBy('user_id')
      .orderBy('created_at', 'desc')
      .execute();
    const plans = new Map(rows.map((row) => [row.user_id, row.plan_code]));
    return unique.map((user_id) => ({ user_id, plan_code: plans.get(user_id) ?? null }));
  }

  /** Whose a subscription is (its person, its organization), to check the caller's right before acting on it. */
  async ownersOf(id: string): Promise<{ id: string; user_id: string | null; org_id: string | null } | undefined> {
    return this.deps.db
      .selectFrom('subscriptions')
      .select(['id', 'user_id', 'org_id'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /**
   * Cancel from the test portal, by its person or an organization's owner (`refuseUnlessSubscriptionOwner`). Within 7 days of the first payment, once per customer: refunded
   * in full and ended at once. Otherwise it runs to the end of the paid period. The refund is
   * recorded with the cancellation and issued after commit (see RefundsService).
   */
  async cancel(owned: { id: string; user_id: string | null; org_id: string | null }): Promise<CancelOutcome> {
    const outcome = await this.deps.db.transaction().execute(
      async (
        tx,
      ): Promise<{
        answer: CancelOutcome;
        refundId: string | null;
      }> => {
        const sub = await tx
          .selectFrom('subscriptions')
          .selectAll()
          .where('id', '=', owned.id)
          // The owners the caller was checked against (identity answers outside the transaction).
          .where((eb) =>
            eb.and([
              owned.user_id === null ? eb('user_id', 'is', null) : eb('user_id', '=', owned.user_id),
              owned.org_id === null ? eb('org_id', 'is', null) : eb('org_id', '=', owned.org_id),
            ]),
          )
          .forUpdate()
          .executeTakeFirst();
        if (!sub) throw new AppError('not_found', 'Subscription not found.');
        if (sub.status === 'canceled')
          return {
            answer: { status: sub.status, refunded_cents: 0, cancel_at_period_end: false, money_back: 'none' },
            refundId: null,
          };
        const now = await clockNow(tx, sub.test_clock_id);
        const moneyBack = await this.deps.refunds.recordMoneyBack(tx, sub, now, { cancelAtProvider: true });
        if (moneyBack.refundId !== null) {
          await applySubscriptionState(tx, sub, {
            status: 'canceled',
            periodStart: null,
            periodEnd: now,
            cancelAtPeriodEnd: false,
            observedAt: now,
          });
          return {
            answer: {
              status: 'canceled',
              refunded_cents: moneyBack.amountCents,
              cancel_at_period_end: false,
              money_back: 'refunded',
            },
            refundId: moneyBack.refundId,
          };
        }
        await applySubscriptionState(tx, sub, {
          status: sub.status,
          periodStart: null,
          periodEnd: null,
          cancelAtPeriodEnd: true,
          observedAt: now,
        });
        return {
          answer: {
            status: sub.status,
            refunded_cents: 0,
            cancel_at_period_end: true,
            money_back: moneyBack.reason === 'already_used' ? 'already_used' : 'none',
          },
          refundId: null,
        };
      },
    );
    if (outcome.refundId) await this.deps.refunds.issue(outcome.refundId);
    return outcome.answer;
  }

  /**
   * Renews test-provider subscriptions whose period ended on their own clock (`renewOwed`: one
   * invoice per month missed, at the subscription's price), and ends those set to cancel at period
   * end. Stripe renews its own and tells us by webhook. `clockId` limits it to one test clock.
   */
  async renewDue(clockId?: string): Promise<number> {
    const { db } = this.deps;
    const realNow = new Date();
    let due = db
      .selectFrom('subscriptions')
      .leftJoin('test_clocks', 'test_clocks.id', 'subscriptions.test_clock_id')
      .select('subscriptions.id')
      .where('subscriptions.provider', '=', 'test')
      .where('subscriptions.status', 'in', ['active', 'past_due'])
      .where(
        'subscriptions.current_period_end',
        '<=',
        sql<Date>`${realNow}::timestamptz + make_interval(secs => coalesce(test_clocks.offset_seconds, 0)::float8)`,
      );
    if (clockId) due = due.where('subscriptions.test_clock_id', '=', clockId);
    let invoices = 0;
    for (const { id } of await due.execute())
      invoices += await db.transaction().execute((tx) => renewOwed(tx, id, realNow));
    if (invoices > 0) this.deps.logger.info({ invoices }, 'test subscriptions renewed');
    return invoices;
  }
}
