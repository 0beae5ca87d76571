import type { Plan } from '@qw/contracts';

export type CheckoutRequest = { plan: Plan; successUrl: string; cancelUrl: string; customerEmail?: string | undefined };

/** What billing needs from a payment provider; both providers end in the same normalized records and events. */
export interface PaymentProvider {
  readonly name: 'stripe' | 'test';
  createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  portalUrl(input: { providerCustomerId: string | null; returnUrl: string }): Promise<string>;
  refund(input: { providerPaymentId: string | null; amountCents: number }): Promise<void>;
}
