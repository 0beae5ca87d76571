import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  AppError,
  checkoutQuantity,
  entitlingStatuses,
  findPlan,
  isEmailAddress,
  isPlanCode,
  normalizeEmail,
  normalizeOrganizationName,
  organizationNameProblem,
  purchaseClaimed,
  requireUserId,
  type Caller,
  type OrganizationRole,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import { type RateLimit, takeRateLimited } from '@qw/platform/limits';
import type { BillingDatabase } from '../database.ts';
import { addMonths, clockNow, createTestClock } from '../clock.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { testCardOf } from '../providers/test-provider.ts';
import { type Claimer, claimNeedsVerifiedEmail } from './claim-rules.ts';
import { organizationPlanRefusal } from '../subscriptions/organization-billing.ts';
import { assignOwner, markCheckoutPaid, recordInvoicePaid, upsertCustomer } from '../subscriptions/ledger.ts';

/**
 * Each checkout is a session at the provider and a row here, made without an account: enough for a
 * person who changes their mind a few times, not for a script. Counted per client address.
 */
export const checkoutLimit: RateLimit = { max: 10, windowSeconds: 3600 };

/** Where a checkout started in the app comes back to (signed in): the purchase is claimed there. */
export const inAppReturnPath = '/checkout/complete';

/** Starting a purchase, confirming it on the way back, and handing it to the buyer's account. */
export class CheckoutService {
  constructor(
    private readonly deps: {
      db: Kysely<BillingDatabase>;
      provider: PaymentProvider;
      publicUrl: string;
      limit?: RateLimit | undefined;
    },
  ) {}

  async create(
    input: {
      plan_code: string;
      customer_email?: string | null | undefined;
      address_key: string;
    },
    inApp: { buyerId: string; orgName: string | null; forOrgId: string | null } | null = null,
  ): Promise<{ url: string; session_id: string }> {
    const plan = findPlan(input.plan_code);
    if (!plan)
      throw new AppError('unknown_plan', `Unknown plan: ${String(input.plan_code).slice(0, 64)}.`, {
        field: 'plan_code',
      });
    await takeRateLimited(
      this.deps.db,
      [{ key: `checkout:address:${input.address_key}`, limit: this.deps.limit ?? checkoutLimit }],
      (wait) => `Too many checkouts were started from your network. Please try again in ${wait}.`,
    );
    const customerEmail = input.customer_email ? normalizeEmail(input.customer_email) : undefined;
    const checkout = await this.deps.provider.createCheckout({
      plan,
      idempotencyKey: `checkout-${randomUUID()}`,
      successUrl: `${new URL(inApp ? inAppReturnPath : '/post-checkout', this.deps.publicUrl).toString()}?sid={CHECKOUT_SESSION_ID}`,
      cancelUrl: new URL(inApp ? '/app/personal/billing' : '/pricing', this.deps.publicUrl).toString(),
      customerEmail: customerEmail && isEmailAddress(customerEmail) ? customerEmail : undefined,
    });
    const testClockId = this.deps.provider.name === 'test' ? await createTestClock(this.deps.db) : null;
    await this.deps.db
      .insertInto('checkout_sessions')
      .values({
        id: checkout.id,
        provider: this.deps.provider.name,
        plan_code: plan.code,
        account_type: plan.accountType,
        quantity: checkoutQuantity,
        amount_cents: plan.priceCents,
        status: 'open',
        email: null,
        customer_id: null,
        subscription_id: null,
        claimed_by: null,
        claimed_org_id: null,
        test_clock_id: testClockId,
        buyer_id: inApp?.buyerId ?? null,
        org_name: inApp?.orgName ?? null,
        for_org_id: inApp?.forOrgId ?? null,
      })
      .execute();
    return { url: checkout.url, session_id: checkout.id };
  }

  /**
   * A checkout started inside the app by a signed-in person (`buyer`, from identity). A personal
   * plan only when none of theirs runs any more (a running one changes plan or resumes instead); a
   * Business plan makes a new organization with the name they chose. The payment page comes back
   * to the app, which claims the purchase for them.
   */
  async createInApp(
    caller: Caller,
    buyer: { email: string; orgRole: OrganizationRole | null },
    input: { plan_code: string; org_name?: string | undefined; org_id?: string | undefined; address_key: string },
  ): Promise<{ url: string; session_id: string }> {
    const buyerId = requireUserId(caller);
    const plan = findPlan(input.plan_code);
    if (!plan)
      throw new AppError('unknown_plan', `Unknown plan: ${String(input.plan_code).slice(0, 64)}.`, {
        field: 'plan_code',
      });
    let orgName: string | null = null;
    if (input.org_id) {
      // Refused now, as the claim would refuse it, before anyone pays.
      const running = await this.deps.db
        .selectFrom('subscriptions')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('org_id', '=', input.org_id)
        .where('status', 'in', [...entitlingStatuses])
        .where('cancel_at_period_end', '=', false)
        .executeTakeFirstOrThrow();
      const refusal = organizationPlanRefusal({ role: buyer.orgRole, plan, runningPlans: Number(running.n) });
      if (refusal) throw refusal;
    } else if (plan.accountType === 'business') {
      orgName = normalizeOrganizationName(input.org_name);
      const problem = organizationNameProblem(orgName);
      if (problem) throw new AppError('validation_failed', problem, { field: 'org_name' });
    } else {
      const running = await this.deps.db
        .selectFrom('subscriptions')
        .select(['plan_code', 'cancel_at_period_end'])
        .where('user_id', '=', buyerId)
        .where('org_id', 'is', null)
        .where('status', 'in', [...entitlingStatuses])
        .orderBy('created_at', 'desc')
        .executeTakeFirst();
      if (running)
        throw new AppError(
          'conflict',
          running.cancel_at_period_end
            ? `Your ${findPlan(running.plan_code)?.name ?? running.plan_code} plan is still running until the end of its period. Resume it in Billing, then change the plan if you like.`
            : `You already have the ${findPlan(running.plan_code)?.name ?? running.plan_code} plan. Use Change plan in Billing instead.`,
        );
    }
    return this.create(
      { plan_code: plan.code, customer_email: buyer.email, address_key: input.address_key },
      { buyerId, orgName, forOrgId: input.org_id ?? null },
    );
  }

  /** What the post-checkout page shows: the paid email and plan; 'unknown' for a plan code we do not sell. */
  async verify(sessionId: string) {
    const session = await this.deps.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', sessionId)
      .executeTakeFirst();
    if (!session)
      throw new AppError(
        'not_found',
        'We could not find this checkout. If you paid, contact support with your receipt.',
      );
    if (session.status === 'open')
      throw new AppError(
        'conflict',
        'This checkout has not been paid yet. Finish the payment, or start again from the pricing page.',
      );
    if (session.status === 'failed')
      throw new AppError(
        'payment_declined',
        'The payment for this checkout did not go through. Start again from the pricing page.',
      );
    if (session.status === 'expired')
      throw new AppError('link_expired', 'This checkout has expired. Start again from the pricing page.');
    return {
      email: session.email ?? '',
      plan_code: isPlanCode(session.plan_code) ? session.plan_code : 'unknown',
      account_type: session.account_type,
      quantity: session.quantity,
    };
  }

  /**
   * Hands the paid purchase to the signed-in account. The email must be the one that paid and
   * the one of the account (`claimer`, from identity), which must be confirmed unless the account
   * is newer than the payment; claiming again with the same account answers the same result.
   */
  async claim(
    caller: Caller,
    claimer: Claimer,
    input: { session_id: string; email: string; org_id?: string | undefined; org_name?: string | undefined },
    orgRole: OrganizationRole | null = null,
  ) {
    const userId = requireUserId(caller);
    return this.deps.db.transaction().execute(async (tx) => {
      const session = await tx
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', input.session_id)
        .forUpdate()
        .executeTakeFirst();
      if (!session) throw new AppError('not_found', 'We could not find this checkout.');
      if (session.status === 'open' || !session.subscription_id || !session.email)
        throw new AppError('conflict', 'This checkout has not been paid yet.');
      if (session.status === 'claimed') {
        if (session.claimed_by === userId)
          return {
            subscription_id: session.subscription_id,
            account_type: session.account_type,
            org_id: session.claimed_org_id,
          };
        throw new AppError('conflict', 'This purchase has already been added to another account.');
      }
      if (normalizeEmail(input.email) !== session.email || normalizeEmail(claimer.email) !== session.email) {
        throw new AppError(
          'email_mismatch',
          'This purchase was paid with a different email address. Sign in with the email you paid with.',
        );
      }
      if (claimNeedsVerifiedEmail(claimer, session.paid_at ? new Date(session.paid_at) : null))
        throw new AppError(
          'email_unverified',
          'Confirm your email address first: open the link we sent to it, then add this purchase to your account.',
        );
      const plan = findPlan(session.plan_code);
      const chosenName = input.org_name === undefined ? null : normalizeOrganizationName(input.org_name);
      const nameProblem = chosenName === null ? null : organizationNameProblem(chosenName);
      if (nameProblem) throw new AppError('validation_failed', nameProblem, { field: 'org_name' });
      if (input.org_id) {
        const running = await tx
          .selectFrom('subscriptions')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('org_id', '=', input.org_id)
          .where('status', 'in', [...entitlingStatuses])
          .where('cancel_at_period_end', '=', false)
          .executeTakeFirstOrThrow();
        const refusal = organizationPlanRefusal({ role: orgRole, plan, runningPlans: Number(running.n) });
        if (refusal) throw refusal;
      }
      const orgId = plan?.accountType === 'business' ? (input.org_id ?? randomUUID()) : null;
      const sub = await tx
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', session.subscription_id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      // The paid invoice before the claim named nobody: its receipt goes with the claim.
      const paidBefore = await tx
        .selectFrom('invoices')
        .selectAll()
        .where('subscription_id', '=', sub.id)
        .where('status', '=', 'paid')
        .where('user_id', 'is', null)
        .orderBy('period_start')
        .executeTakeFirst();
      await assignOwner(tx, sub, { userId, orgId }, await clockNow(tx, sub.test_clock_id));
      await tx
        .updateTable('checkout_sessions')
        .set({ status: 'claimed', claimed_by: userId, claimed_org_id: orgId, claimed_at: new Date() })
        .where('id', '=', session.id)
        .execute();
      await addToOutbox(tx, purchaseClaimed, {
        userId,
        subscriptionId: sub.id,
        planCode: session.plan_code,
        accountType: session.account_type === 'business' ? 'business' : 'personal',
        seats: session.quantity,
        orgId,
        ...(orgId && !input.org_id && (chosenName || session.org_name)
          ? { orgName: chosenName || session.org_name || undefined }
          : {}),
        invoice: paidBefore
          ? {
              invoiceId: paidBefore.id,
              planCode: paidBefore.plan_code,
              amountCents: paidBefore.amount_cents,
              currency: paidBefore.currency,
              paidAt: new Date(paidBefore.paid_at ?? paidBefore.created_at).toISOString(),
              periodStart: new Date(paidBefore.period_start).toISOString(),
              periodEnd: new Date(paidBefore.period_end).toISOString(),
              invoiceNumber: Number(paidBefore.number),
              cardBrand: paidBefore.card_brand,
              cardLast4: paidBefore.card_last4,
            }
          : null,
      });
      return { subscription_id: sub.id, account_type: session.account_type, org_id: orgId };
    });
  }

  /** The organization an in-app checkout pays for again, if it does (its claim is for that organization). */
  async organizationPaidFor(sessionId: string): Promise<string | null> {
    const session = await this.deps.db
      .selectFrom('checkout_sessions')
      .select('for_org_id')
      .where('id', '=', sessionId)
      .executeTakeFirst();
    return session?.for_org_id ?? null;
  }

  async testCheckoutInfo(sessionId: string) {
    const session = await this.deps.db
      .selectFrom('checkout_sessions')
      .selectAll()
      .where('id', '=', sessionId)
      .where('provider', '=', 'test')
      .executeTakeFirst();
    if (!session) throw new AppError('not_found', 'We could not find this checkout.');
    return {
      session_id: session.id,
      plan_code: session.plan_code,
      plan_name: findPlan(session.plan_code)?.name ?? session.plan_code,
      amount_cents: session.amount_cents,
      currency: session.currency,
      status: session.status,
      test_clock_id: session.test_clock_id,
    };
  }

  /** The test checkout's Pay button: no card is charged; the same records and events as a real payment. */
  async testPay(input: { session_id: string; email: string; card_number: string }): Promise<{ redirect_url: string }> {
    if (this.deps.provider.name !== 'test')
      throw new AppError('not_found', 'The test checkout is off: payments go through Stripe.');
    const email = normalizeEmail(input.email);
    if (!isEmailAddress(email))
      throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
    const card = testCardOf(input.card_number);
    let redirect = `${new URL('/post-checkout', this.deps.publicUrl).toString()}?sid=${encodeURIComponent(input.session_id)}`;
    await this.deps.db.transaction().execute(async (tx) => {
      const session = await tx
        .selectFrom('checkout_sessions')
        .selectAll()
        .where('id', '=', input.session_id)
        .where('provider', '=', 'test')
        .forUpdate()
        .executeTakeFirst();
      if (!session) throw new AppError('not_found', 'We could not find this checkout.');
      // Started in the app by a signed-in person: back to the app, which claims it for them.
      if (session.buyer_id)
        redirect = `${new URL(inAppReturnPath, this.deps.publicUrl).toString()}?sid=${encodeURIComponent(input.session_id)}`;
      if (session.status !== 'open') return;
      const now = await clockNow(tx, session.test_clock_id);
      const customerId = await upsertCustomer(tx, { provider: 'test', providerCustomerId: null, email });
      const subscriptionId = randomUUID();
      const periodEnd = addMonths(now);
      await tx
        .insertInto('subscriptions')
        .values({
          id: subscriptionId,
          provider: 'test',
          provider_subscription_id: null,
          customer_id: customerId,
          user_id: null,
          org_id: null,
          plan_code: session.plan_code,
          status: 'active',
          current_period_start: now,
          current_period_end: periodEnd,
          canceled_at: null,
          provider_updated_at: null,
          test_clock_id: session.test_clock_id,
          started_at: now,
          monthly_cents: session.amount_cents,
          // What receipts name: the brand (by the number) and the last four digits, never the number.
          card_brand: card.brand,
          card_last4: card.last4,
        })
        .execute();
      await markCheckoutPaid(tx, session, { email, customerId, subscriptionId, paidAt: now });
      const sub = await tx
        .selectFrom('subscriptions')
        .selectAll()
        .where('id', '=', subscriptionId)
        .executeTakeFirstOrThrow();
      await recordInvoicePaid(tx, sub, {
        providerInvoiceId: null,
        amountCents: session.amount_cents,
        currency: session.currency,
        periodStart: now,
        periodEnd,
        paidAt: now,
        providerPaymentId: null,
        reason: 'checkout',
      });
    });
    return { redirect_url: redirect };
  }
}
