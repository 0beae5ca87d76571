import type { Plan } from '@qw/contracts';

export type CheckoutRequest = {
  plan: Plan;
  successUrl: string;
  cancelUrl: string;
  customerEmail?: string | undefined;
  /** The same key for a retried request, so the provider makes one session. */
  idempotencyKey: string;
};

/**
 * What billing needs from a payment provider; both providers end in the same normalized records
 * and events. Every call that creates something at the provider carries an idempotency key, so a
 * retry after a lost answer never creates it twice.
 */
export interface PaymentProvider {
  readonly name: 'stripe' | 'test';
  createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  portalUrl(input: { providerCustomerId: string | null; returnUrl: string }): Promise<string>;
  refund(input: { providerPaymentId: string | null; amountCents: number; idempotencyKey: string }): Promise<void>;
  /** Ends the subscription now at the provider (the money-back refund ends the plan). Done already is fine. */
  cancelNow(input: { providerSubscriptionId: string; idempotencyKey: string }): Promise<void>;
}
