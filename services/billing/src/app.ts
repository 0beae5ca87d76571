import { billingEvents } from '@qw/contracts';
import type { ServiceDefinition } from '@qw/platform';
import type { BillingDatabase } from './database.ts';
import { CheckoutService } from './checkout/checkout.service.ts';
import { SubscriptionsService } from './subscriptions/subscriptions.service.ts';
import { StripeWebhookService } from './webhooks/stripe-webhook.service.ts';
import { TestPaymentProvider } from './providers/test-provider.ts';
import { StripePaymentProvider, createStripeClient } from './providers/stripe-provider.ts';
import type { PaymentProvider } from './providers/payment-provider.ts';
import { billingEndpoints } from './rpc/billing.rpc.ts';

export type BillingSettings = {
  PUBLIC_URL: string;
  STRIPE_SECRET_KEY?: string | undefined;
  STRIPE_WEBHOOK_SECRET?: string | undefined;
  STRIPE_API_URL?: string | undefined;
  BILLING_TEST_CLOCK: boolean;
  NODE_ENV?: string;
};

/**
 * The billing service: checkout (Stripe when STRIPE_SECRET_KEY is set, otherwise the local test
 * provider), webhooks, subscriptions, invoices, claims, Manage Billing and the 7-day refund.
 */
export function billingService(settings: BillingSettings): ServiceDefinition<BillingDatabase> {
  const stripe = settings.STRIPE_SECRET_KEY ? createStripeClient(settings.STRIPE_SECRET_KEY, settings.STRIPE_API_URL) : undefined;
  const provider: PaymentProvider = stripe ? new StripePaymentProvider(stripe) : new TestPaymentProvider(settings.PUBLIC_URL);
  let subscriptions: SubscriptionsService | undefined;
  return {
    name: 'billing',
    version: '0.2.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: billingEvents,
    rpc: ({ db, logger }) => {
      subscriptions = new SubscriptionsService({ db, provider, publicUrl: settings.PUBLIC_URL, logger });
      const checkout = new CheckoutService({ db, provider, publicUrl: settings.PUBLIC_URL });
      const webhooks = stripe && settings.STRIPE_WEBHOOK_SECRET
        ? new StripeWebhookService({ db, stripe, webhookSecret: settings.STRIPE_WEBHOOK_SECRET, subscriptions, logger })
        : undefined;
      return billingEndpoints({ db, checkout, subscriptions, webhooks, testClock: settings.BILLING_TEST_CLOCK && settings.NODE_ENV !== 'production' });
    },
    tasks: () => [{ name: 'renew-test-subscriptions', everyMs: 60_000, run: async () => void (await subscriptions?.renewDue()) }],
  };
}
