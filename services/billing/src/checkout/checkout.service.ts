import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError, checkoutQuantity, findPlan, isEmailAddress, isPlanCode, normalizeEmail, purchaseClaimed, requireUserId, type Caller } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { BillingDatabase } from '../database.ts';
import { addMonths, billingNow } from '../clock.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { isCardNumber, testCards } from '../providers/test-provider.ts';
import { assignOwner, markCheckoutPaid, recordInvoicePaid, upsertCustomer } from '../subscriptions/ledger.ts';

/** Starting a purchase, confirming it on the way back, and handing it to the buyer's account. */
export class CheckoutService {
  constructor(private readonly deps: { db: Kysely<BillingDatabase>; provider: PaymentProvider; publicUrl: string }) {}

  async create(input: { plan_code: string; customer_email?: string | null | undefined }): Promise<{ url: string; session_id: string }> {
    const plan = findPlan(input.plan_code);
    if (!plan) throw new AppError('unknown_plan', `Unknown plan: ${String(input.plan_code).slice(0, 64)}.`, { field: 'plan_code' });
    const customerEmail = input.customer_email ? normalizeEmail(input.customer_email) : undefined;
    const checkout = await this.deps.provider.createCheckout({
      plan,
      successUrl: `${new URL('/post-checkout', this.deps.publicUrl).toString()}?sid={CHECKOUT_SESSION_ID}`,
      cancelUrl: new URL('/pricing', this.deps.publicUrl).toString(),
      customerEmail: customerEmail && isEmailAddress(customerEmail) ? customerEmail : undefined,
    });
    await this.deps.db.insertInto('checkout_sessions').values({
      id: checkout.id, provider: this.deps.provider.name, plan_code: plan.code, account_type: plan.accountType, quantity: checkoutQuantity,
      amount_cents: plan.priceCents, status: 'open', email: null, customer_id: null, subscription_id: null, claimed_by: null, claimed_org_id: null,
    }).execute();
    return { url: checkout.url, session_id: checkout.id };
  }

  /** What the post-checkout page shows: the paid email and plan; 'unknown' for a plan code we do not sell. */
  async verify(sessionId: string) {
    const session = await this.deps.db.selectFrom('checkout_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
    if (!session) throw new AppError('not_found', 'We could not find this checkout. If you paid, contact support with your receipt.');
    if (session.status === 'open') throw new AppError('conflict', 'This checkout has not been paid yet. Finish the payment, or start again from the pricing page.');
    if (session.status === 'expired') throw new AppError('link_expired', 'This checkout has expired. Start again from the pricing page.');
    return {
      email: session.email ?? '',
      plan_code: isPlanCode(session.plan_code) ? session.plan_code : 'unknown',
      account_type: session.account_type,
      quantity: session.quantity,
    };
  }

  /**
   * Hands the paid purchase to the signed-in account. The email must be the one that paid and
   * the one of the account; claiming again with the same account answers the same result.
   */
  async claim(caller: Caller, input: { session_id: string; email: string; claimer_email: string }) {
    const userId = requireUserId(caller);
    return this.deps.db.transaction().execute(async (tx) => {
      const session = await tx.selectFrom('checkout_sessions').selectAll().where('id', '=', input.session_id).forUpdate().executeTakeFirst();
      if (!session) throw new AppError('not_found', 'We could not find this checkout.');
      if (session.status === 'open' || !session.subscription_id || !session.email) throw new AppError('conflict', 'This checkout has not been paid yet.');
      if (session.status === 'claimed') {
        if (session.claimed_by === userId) return { subscription_id: session.subscription_id, account_type: session.account_type, org_id: session.claimed_org_id };
        throw new AppError('conflict', 'This purchase has already been added to another account.');
      }
      if (normalizeEmail(input.email) !== session.email || normalizeEmail(input.claimer_email) !== session.email) {
        throw new AppError('email_mismatch', 'This purchase was paid with a different email address. Sign in with the email you paid with.');
      }
      const plan = findPlan(session.plan_code);
      const orgId = plan?.accountType === 'business' ? randomUUID() : null;
      const sub = await tx.selectFrom('subscriptions').selectAll().where('id', '=', session.subscription_id).forUpdate().executeTakeFirstOrThrow();
      await assignOwner(tx, sub, { userId, orgId });
      await tx.updateTable('checkout_sessions').set({ status: 'claimed', claimed_by: userId, claimed_org_id: orgId, claimed_at: new Date() }).where('id', '=', session.id).execute();
      await addToOutbox(tx, purchaseClaimed, {
        userId, subscriptionId: sub.id, planCode: session.plan_code, accountType: session.account_type === 'business' ? 'business' : 'personal',
        seats: session.quantity, orgId,
      });
      return { subscription_id: sub.id, account_type: session.account_type, org_id: orgId };
    });
  }

  async testCheckoutInfo(sessionId: string) {
    const session = await this.deps.db.selectFrom('checkout_sessions').selectAll().where('id', '=', sessionId).where('provider', '=', 'test').executeTakeFirst();
    if (!session) throw new AppError('not_found', 'We could not find this checkout.');
    return {
      session_id: session.id, plan_code: session.plan_code, plan_name: findPlan(session.plan_code)?.name ?? session.plan_code,
      amount_cents: session.amount_cents, currency: session.currency, status: session.status,
    };
  }

  /** The test checkout's Pay button: no card is charged; the same records and events as a real payment. */
  async testPay(input: { session_id: string; email: string; card_number: string }): Promise<{ redirect_url: string }> {
    if (this.deps.provider.name !== 'test') throw new AppError('not_found', 'The test checkout is off: payments go through Stripe.');
    const email = normalizeEmail(input.email);
    if (!isEmailAddress(email)) throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
    const card = input.card_number.replace(/[\s-]/g, '');
    if (!isCardNumber(card)) throw new AppError('validation_failed', 'That card number is not valid. Use the test card 4242 4242 4242 4242.', { field: 'card_number' });
    if (card === testCards.declines) throw new AppError('payment_declined', 'Your card was declined. (Test card 4000 0000 0000 0002 always declines.)', { field: 'card_number' });
    const redirect = `${new URL('/post-checkout', this.deps.publicUrl).toString()}?sid=${encodeURIComponent(input.session_id)}`;
    await this.deps.db.transaction().execute(async (tx) => {
      const session = await tx.selectFrom('checkout_sessions').selectAll().where('id', '=', input.session_id).where('provider', '=', 'test').forUpdate().executeTakeFirst();
      if (!session) throw new AppError('not_found', 'We could not find this checkout.');
      if (session.status !== 'open') return;
      const now = await billingNow(tx);
      const customerId = await upsertCustomer(tx, { provider: 'test', providerCustomerId: null, email });
      const subscriptionId = randomUUID();
      const periodEnd = addMonths(now);
      await tx.insertInto('subscriptions').values({
        id: subscriptionId, provider: 'test', provider_subscription_id: null, customer_id: customerId, user_id: null, org_id: null,
        plan_code: session.plan_code, status: 'active', current_period_start: now, current_period_end: periodEnd, canceled_at: null, provider_updated_at: null,
      }).execute();
      await markCheckoutPaid(tx, session, { email, customerId, subscriptionId, paidAt: now });
      const sub = await tx.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();
      await recordInvoicePaid(tx, sub, {
        providerInvoiceId: null, amountCents: session.amount_cents, currency: session.currency, periodStart: now, periodEnd, paidAt: now, providerPaymentId: null,
      });
    });
    return { redirect_url: redirect };
  }
}
