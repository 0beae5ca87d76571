import {
  AppError, advanceClockRpc, billingOverviewRpc, claimCheckoutRpc, createCheckoutRpc, manageBillingRpc, stripeWebhookRpc,
  testCheckoutInfoRpc, testCheckoutPayRpc, testPortalCancelRpc, verifyCheckoutRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { BillingDatabase } from '../database.ts';
import { advanceClock, billingNow } from '../clock.ts';
import type { CheckoutService } from '../checkout/checkout.service.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { StripeWebhookService } from '../webhooks/stripe-webhook.service.ts';

export function billingEndpoints(deps: {
  db: Kysely<BillingDatabase>;
  checkout: CheckoutService;
  subscriptions: SubscriptionsService;
  webhooks: StripeWebhookService | undefined;
  testClock: boolean;
}): RpcEndpoint[] {
  const { checkout, subscriptions, webhooks } = deps;
  return [
    endpoint(createCheckoutRpc, (data) => checkout.create(data)),
    endpoint(verifyCheckoutRpc, async (data) => {
      try {
        return await checkout.verify(data.session_id);
      } catch (error) {
        // Back from Stripe before its webhook: ask Stripe, then answer.
        if (webhooks && error instanceof AppError && error.code === 'conflict') {
          await webhooks.settleFromApi(data.session_id);
          return checkout.verify(data.session_id);
        }
        throw error;
      }
    }),
    endpoint(claimCheckoutRpc, (data, caller) => checkout.claim(caller, data)),
    endpoint(billingOverviewRpc, (data, caller) => subscriptions.overview(caller, data.org_id)),
    endpoint(manageBillingRpc, (data, caller) => subscriptions.manageUrl(caller, data.return_path, data.org_id)),
    endpoint(testCheckoutInfoRpc, (data) => checkout.testCheckoutInfo(data.session_id)),
    endpoint(testCheckoutPayRpc, (data) => checkout.testPay(data)),
    endpoint(testPortalCancelRpc, (data, caller) => subscriptions.cancel(caller, data.subscription_id)),
    endpoint(stripeWebhookRpc, (data) => {
      if (!webhooks) throw new AppError('not_found', 'Stripe is not configured.');
      return webhooks.receive(data.payload, data.signature);
    }),
    endpoint(advanceClockRpc, async (data) => {
      if (!deps.testClock) throw new AppError('forbidden', 'The test clock is off.');
      await advanceClock(deps.db, data.days);
      await subscriptions.renewDue();
      return { now: (await billingNow(deps.db)).toISOString() };
    }),
  ];
}
