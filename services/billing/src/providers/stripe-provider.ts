import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { CheckoutRequest, PaymentProvider } from './payment-provider.ts';

export function createStripeClient(secretKey: string, apiUrl?: string): Stripe {
  const target = apiUrl ? new URL(apiUrl) : undefined;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(target
      ? {
          host: target.hostname,
          port: target.port || (target.protocol === 'https:' ? 443 : 80),
          protocol: target.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  });
}

/** Stripe Checkout in subscription mode with the plan's price id; the customer portal for Manage Billing. */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  constructor(private readonly stripe: Stripe) {}

  async createCheckout(request: CheckoutRequest) {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        line_items: [{ price: request.plan.priceId, quantity: 1 }],
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        ...(request.customerEmail ? { customer_email: request.customerEmail } : {}),
        metadata: { plan_code: request.plan.code, account_type: request.plan.accountType },
        subscription_data: { metadata: { plan_code: request.plan.code } },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    if (!session.url) throw new Error('Stripe answered a checkout session without a url');
    return { id: session.id, url: session.url };
  }

  async portalUrl(input: { providerCustomerId: string | null; returnUrl: string }) {
    if (!input.providerCustomerId) throw new Error('no Stripe customer for this subscription');
    // A portal session is made per visit: a fresh key only keeps a retried request from making two.
    const portal = await this.stripe.billingPortal.sessions.create(
      { customer: input.providerCustomerId, return_url: input.returnUrl },
      { idempotencyKey: `portal-${randomUUID()}` },
    );
    return portal.url;
  }

  async refund(input: { providerPaymentId: string | null; amountCents: number; idempotencyKey: string }) {
    if (!input.providerPaymentId) throw new Error('no Stripe payment to refund');
    await this.stripe.refunds.create(
      { payment_intent: input.providerPaymentId, amount: input.amountCents },
      { idempotencyKey: input.idempotencyKey },
    );
  }

  async cancelNow(input: { providerSubscriptionId: string; idempotencyKey: string }) {
    try {
      await this.stripe.subscriptions.cancel(
        input.providerSubscriptionId,
        {},
        { idempotencyKey: input.idempotencyKey },
      );
    } catch (error) {
      // Ended at Stripe already (by the customer, or by an earlier try whose answer was lost): done.
      const current = await this.stripe.subscriptions.retrieve(input.providerSubscriptionId);
      if (current.status !== 'canceled') throw error;
    }
  }
}
