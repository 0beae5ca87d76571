import {
  adminPersonBillingRpc,
  adminRefundLatestRpc,
  billingEvents,
  exportBillingDataRpc,
  requireAdmin,
  requireUserId,
} from '@qw/contracts';
import { endpoint } from '@qw/platform/bus';
import type { ServiceContext, ServiceDefinition } from '@qw/platform';
import { ConfigError } from '@qw/platform/config';
import type { RateLimit } from '@qw/platform/limits';
import { paymentSetupProblems } from './config.ts';
import type { BillingDatabase } from './database.ts';
import { CheckoutService } from './checkout/checkout.service.ts';
import { SubscriptionsService } from './subscriptions/subscriptions.service.ts';
import { PlanChangesService } from './subscriptions/plan-changes.service.ts';
import { StripeWebhookService } from './webhooks/stripe-webhook.service.ts';
import { TestPaymentProvider } from './providers/test-provider.ts';
import { StripePaymentProvider, createStripeClient } from './providers/stripe-provider.ts';
import { StripePlanChanges } from './providers/stripe-plan-changes.ts';
import type { PaymentProvider } from './providers/payment-provider.ts';
import { RefundsService } from './refunds/refunds.service.ts';
import { billingEndpoints } from './rpc/billing.rpc.ts';
import { cancelDueAtProvider, exportBillingData } from './accounts/account-data.ts';
import { personBilling } from './admin/admin-person-billing.ts';
import { refundLatestPayment } from './admin/admin-refund.ts';
import { userDeletedConsumer } from './consumers/user-deleted.consumer.ts';

export type BillingSettings = {
  PUBLIC_URL: string;
  STRIPE_SECRET_KEY?: string | undefined;
  STRIPE_WEBHOOK_SECRET?: string | undefined;
  STRIPE_API_URL?: string | undefined;
  BILLING_TEST_CLOCK: boolean;
  ALLOW_TEST_PAYMENTS?: boolean | undefined;
  NODE_ENV?: string;
  /** How often refunds left pending (provider down, crash before recording) are asked for again. */
  refundRetryEveryMs?: number;
  /** How often stored Stripe events whose handling failed are looked at again (each waits its backoff). */
  webhookRetryEveryMs?: number;
  /** Checkouts per client address (default `checkoutLimit`); browser tests all come from one address. */
  checkoutLimit?: RateLimit;
};

/**
 * The billing service: checkout (Stripe when STRIPE_SECRET_KEY is set, otherwise the local test
 * provider), webhooks, subscriptions, invoices, claims, Manage Billing and the 7-day refund.
 */
export function billingService(settings: BillingSettings): ServiceDefinition<BillingDatabase> {
  const problems = paymentSetupProblems(settings);
  if (problems.length > 0) throw new ConfigError(problems);
  const stripe = settings.STRIPE_SECRET_KEY
    ? createStripeClient(settings.STRIPE_SECRET_KEY, settings.STRIPE_API_URL)
    : undefined;
  const provider: PaymentProvider = stripe
    ? new StripePaymentProvider(stripe)
    : new TestPaymentProvider(settings.PUBLIC_URL);
  // One set of services per started instance, shared by its RPC endpoints and its periodic tasks.
  let built: ReturnType<typeof buildServices> | undefined;
  const servicesFor = (context: ServiceContext<BillingDatabase>) => {
    built ??= buildServices(context);
    return built;
  };
  function buildServices({ db, logger, rpc }: ServiceContext<BillingDatabase>) {
    const refunds = new RefundsService({ db, provider, logger });
    const subscriptions = new SubscriptionsService({ db, provider, refunds, publicUrl: settings.PUBLIC_URL, logger });
    const planChanges = new PlanChangesService({
      db,
      rpc,
      stripe: stripe ? new StripePlanChanges(stripe) : undefined,
      logger,
    });
    const checkout = new CheckoutService({
      db,
      provider,
      publicUrl: settings.PUBLIC_URL,
      limit: settings.checkoutLimit,
    });
    const webhooks =
      stripe && settings.STRIPE_WEBHOOK_SECRET
        ? new StripeWebhookService({ db, stripe, webhookSecret: settings.STRIPE_WEBHOOK_SECRET, refunds, logger })
        : undefined;
    return { refunds, subscriptions, planChanges, checkout, webhooks };
  }
  return {
    name: 'billing',
    version: '0.3.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: billingEvents,
    rpc: (context) => {
      const { checkout, subscriptions, planChanges, webhooks, refunds } = servicesFor(context);
      return [
        ...billingEndpoints({
          db: context.db,
          rpc: context.rpc,
          checkout,
          subscriptions,
          planChanges,
          webhooks,
          provider: provider.name,
          testClock: provider.name === 'test' && settings.BILLING_TEST_CLOCK && settings.NODE_ENV !== 'production',
        }),
        endpoint(exportBillingDataRpc, (_data, caller) => exportBillingData(context.db, requireUserId(caller))),
        // The operator console's page of one person: platform admins only.
        endpoint(adminPersonBillingRpc, (data, caller) => {
          requireAdmin(caller);
          return personBilling(context.db, data.user_id);
        }),
        endpoint(adminRefundLatestRpc, (data, caller) => {
          const operatorId = requireAdmin(caller);
          return refundLatestPayment(context.db, refunds, data.user_id, operatorId);
        }),
      ];
    },
    consumers: (context) => [
      {
        ...userDeletedConsumer,
        afterCommit: () =>
          void cancelDueAtProvider(context.db, provider, context.logger).catch((error: unknown) =>
            context.logger.warn({ err: error }, 'cancelling at the provider failed; retried'),
          ),
      },
    ],
    tasks: (context) => {
      const { subscriptions, refunds, webhooks } = servicesFor(context);
      return [
        // Stored Stripe events whose handling failed, and any stored before a restart (or by a
        // replica that stopped), looked at again every few seconds.
        ...(webhooks
          ? [
              {
                name: 'apply-stripe-events',
                everyMs: settings.webhookRetryEveryMs ?? 5_000,
                run: async () => void (await webhooks.handleDue()),
              },
            ]
          : []),
        {
          name: 'renew-test-subscriptions',
          everyMs: 60_000,
          rule: 'each-period',
          run: async () => void (await subscriptions.renewDue()),
        },
        // Deleted accounts' plans the provider did not cancel yet (down, or a crash after the commit).
        {
          name: 'cancel-deleted-accounts-plans',
          everyMs: settings.refundRetryEveryMs ?? 60_000,
          run: async () => void (await cancelDueAtProvider(context.db, provider, context.logger)),
        },
        {
          name: 'retry-pending-refunds',
          everyMs: settings.refundRetryEveryMs ?? 60_000,
          run: async () => void (await refunds.retryPending()),
        },
      ];
    },
  };
}
