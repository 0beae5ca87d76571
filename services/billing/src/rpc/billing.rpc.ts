import {
  AppError,
  activePlanRpc,
  adminUserPlansRpc,
  advanceClockRpc,
  appCheckoutRpc,
  billingDetailsRpc,
  billingOverviewRpc,
  changePlanRpc,
  claimCheckoutRpc,
  createCheckoutRpc,
  getMeRpc,
  invoiceReceiptRpc,
  manageBillingRpc,
  previewPlanChangeRpc,
  receiptMailFactsRpc,
  requireAdmin,
  setBillingDetailsRpc,
  resumeSubscriptionRpc,
  requireUserId,
  startClockRpc,
  stripeWebhookRpc,
  testCheckoutInfoRpc,
  testCheckoutPayRpc,
  testPortalCancelRpc,
  testPortalCardRpc,
  verifyCheckoutRpc,
  type Caller,
} from '@qw/contracts';
import { endpoint, type RpcClient, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { BillingDatabase } from '../database.ts';
import { advanceTestClock, startTestClock } from '../clock.ts';
import type { CheckoutService } from '../checkout/checkout.service.ts';
import type { BillingOwner, SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import {
  organizationBillingRefusal,
  organizationRoleOf,
  refuseUnlessSubscriptionOwner,
  type OrganizationBillingAction,
} from '../subscriptions/organization-billing.ts';
import type { PlanChangesService } from '../subscriptions/plan-changes.service.ts';
import { billingDetailsOf, setBillingDetails } from '../subscriptions/billing-details.ts';
import { changeTestCard } from '../cards/card-change.ts';
import type { StripeWebhookService } from '../webhooks/stripe-webhook.service.ts';

export function billingEndpoints(deps: {
  db: Kysely<BillingDatabase>;
  rpc: RpcClient;
  checkout: CheckoutService;
  subscriptions: SubscriptionsService;
  planChanges: PlanChangesService;
  webhooks: StripeWebhookService | undefined;
  testClock: boolean;
  provider: 'stripe' | 'test';
}): RpcEndpoint[] {
  const { checkout, subscriptions, planChanges, webhooks } = deps;
  /** The caller's own billing, or an organization's when identity says their role there allows the action. */
  const billingOwner = async (
    caller: Caller,
    orgId: string | undefined,
    action: OrganizationBillingAction,
  ): Promise<BillingOwner> => {
    const userId = requireUserId(caller);
    if (!orgId) return { userId };
    const refusal = organizationBillingRefusal(await organizationRoleOf(deps.rpc, caller, orgId, userId), action);
    if (refusal) throw refusal;
    return { orgId };
  };
  // The test provider's calls exist only while it is the provider: with Stripe, a test-portal
  // cancel would end (and refund) a real subscription without Stripe knowing.
  const testProvider = (): void => {
    if (deps.provider !== 'test')
      throw new AppError('not_found', 'The test payment provider is off: payments go through Stripe.');
  };
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
    endpoint(claimCheckoutRpc, async (data, caller) => {
      const userId = requireUserId(caller);
      // Identity says who the caller is (address, confirmed or not, since when), asked with their own caller.
      const me = await deps.rpc.request(getMeRpc, {}, caller);
      const claimer = {
        email: me.user.email,
        emailVerified: me.email_verified,
        createdAt: new Date(me.user.created_at),
      };
      // Bought for an organization of theirs (its plan ended, paid again; in the app the checkout
      // says which): identity says who they are in it.
      const orgId = data.org_id ?? (await checkout.organizationPaidFor(data.session_id)) ?? undefined;
      const orgRole = orgId ? await organizationRoleOf(deps.rpc, caller, orgId, userId) : null;
      return checkout.claim(caller, claimer, orgId ? { ...data, org_id: orgId } : data, orgRole);
    }),
    // Service to service: no user caller; NATS permissions decide who may ask.
    endpoint(activePlanRpc, async (data) => ({ plan: await subscriptions.activePlan(data) })),
    endpoint(receiptMailFactsRpc, (data) => subscriptions.receiptMailFacts(data.invoice_id)),
    // The operator console's users page: platform admins only.
    endpoint(adminUserPlansRpc, async (data, caller) => {
      requireAdmin(caller);
      return { plans: await subscriptions.personalPlansOf(data.user_ids) };
    }),
    endpoint(billingOverviewRpc, async (data, caller) =>
      subscriptions.overview(await billingOwner(caller, data.org_id, 'read')),
    ),
    endpoint(manageBillingRpc, async (data, caller) =>
      subscriptions.manageUrl(
        await billingOwner(caller, data.org_id, 'manage'),
        data.return_path,
        requireUserId(caller),
      ),
    ),
    endpoint(invoiceReceiptRpc, async (data, caller) => {
      const userId = requireUserId(caller);
      return subscriptions.receipt(data.invoice_id, async (owner) => {
        // An organization's invoice: its owners and admins (identity says), like its plan.
        if (owner.orgId) {
          const role = await organizationRoleOf(deps.rpc, caller, owner.orgId, userId);
          return role === 'owner' || role === 'admin';
        }
        return owner.userId === userId;
      });
    }),
    // Billing details for invoices: a person's own; an organization's read by its owners and admins, set by its owners.
    endpoint(billingDetailsRpc, async (data, caller) =>
      billingDetailsOf(deps.db, await billingOwner(caller, data.org_id, 'read')),
    ),
    endpoint(setBillingDetailsRpc, async (data, caller) => {
      const { org_id: orgId, ...details } = data;
      return setBillingDetails(deps.db, await billingOwner(caller, orgId, 'manage'), details);
    }),
    endpoint(changePlanRpc, (data, caller) => planChanges.change(caller, data)),
    endpoint(previewPlanChangeRpc, (data, caller) => planChanges.preview(caller, data)),
    endpoint(resumeSubscriptionRpc, (data, caller) => planChanges.resume(caller, data)),
    endpoint(appCheckoutRpc, async (data, caller) => {
      requireUserId(caller);
      // The payment page is filled with the account's address: the claim needs the same one.
      const me = await deps.rpc.request(getMeRpc, {}, caller);
      const orgRole = data.org_id
        ? await organizationRoleOf(deps.rpc, caller, data.org_id, requireUserId(caller))
        : null;
      return checkout.createInApp(caller, { email: me.user.email, orgRole }, data);
    }),
    endpoint(testCheckoutInfoRpc, async (data) => {
      testProvider();
      return checkout.testCheckoutInfo(data.session_id);
    }),
    endpoint(testCheckoutPayRpc, async (data) => {
      testProvider();
      return checkout.testPay(data);
    }),
    endpoint(testPortalCancelRpc, async (data, caller) => {
      testProvider();
      const sub = await subscriptions.ownersOf(data.subscription_id);
      return subscriptions.cancel(await refuseUnlessSubscriptionOwner(deps.rpc, caller, sub, 'cancel'));
    }),
    endpoint(testPortalCardRpc, async (data, caller) => {
      testProvider();
      const sub = await subscriptions.ownersOf(data.subscription_id);
      await refuseUnlessSubscriptionOwner(deps.rpc, caller, sub, 'manage');
      return changeTestCard(deps.db, data.subscription_id, data.card_number);
    }),
    endpoint(stripeWebhookRpc, (data) => {
      if (!webhooks) throw new AppError('not_found', 'Stripe is not configured.');
      return webhooks.receive(data.payload, data.signature);
    }),
    endpoint(advanceClockRpc, async (data) => {
      testProvider();
      if (!deps.testClock) throw new AppError('not_found', 'The test clock is off.');
      const now = await advanceTestClock(deps.db, data.clock_id, data.days);
      await subscriptions.renewDue(data.clock_id);
      return { clock_id: data.clock_id, now: now.toISOString() };
    }),
    endpoint(startClockRpc, async (data) => {
      testProvider();
      if (!deps.testClock) throw new AppError('not_found', 'The test clock is off.');
      const now = await startTestClock(deps.db, data.clock_id, new Date(data.at));
      return { clock_id: data.clock_id, now: now.toISOString() };
    }),
  ];
}
