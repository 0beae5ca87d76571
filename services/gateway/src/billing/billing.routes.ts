import {
  AppError,
  appCheckoutRoute,
  appCheckoutRpc,
  billingDetailsRoute,
  billingDetailsRpc,
  billingOverviewRoute,
  billingOverviewRpc,
  setBillingDetailsRoute,
  setBillingDetailsRpc,
  changePlanRoute,
  changePlanRpc,
  claimCheckoutRoute,
  claimCheckoutRpc,
  createCheckoutRoute,
  createCheckoutRpc,
  invoiceReceiptRoute,
  invoiceReceiptRpc,
  manageBillingRoute,
  manageBillingRpc,
  previewPlanChangeRoute,
  previewPlanChangeRpc,
  resumeSubscriptionRoute,
  resumeSubscriptionRpc,
  safeNextPath,
  stripeWebhookRoute,
  stripeWebhookRpc,
  testCheckoutPayRoute,
  testCheckoutPayRpc,
  testCheckoutRoute,
  testCheckoutInfoRpc,
  testPaymentsAllowed,
  testPortalCancelRoute,
  testPortalCancelRpc,
  testPortalCardRoute,
  testPortalCardRpc,
  verifyCheckoutRoute,
  verifyCheckoutRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addressKey } from '../auth/caller.ts';
import type { GatewayConfig } from '../config.ts';
import { addRoute, type RouteRequest } from '../http/add-route.ts';
import { wantsPage } from '../http/sign-in-page.ts';
import { untilIdentityShows } from './identity-follows.ts';
import { isUuid } from '../http/ids.ts';

export type BillingRouteSettings = {
  /** Keys the HMAC that stands in for the client address (the checkout creation limit). */
  addressHashKey: string;
  /** The local test provider's pages exist only where it may take payments. */
  testPayments: boolean;
};

export function billingRouteSettings(
  config: Pick<GatewayConfig, 'ADDRESS_HASH_KEY' | 'NODE_ENV' | 'ALLOW_TEST_PAYMENTS'>,
): BillingRouteSettings {
  return { addressHashKey: config.ADDRESS_HASH_KEY, testPayments: testPaymentsAllowed(config) };
}

export function registerBillingRoutes(app: HttpApp, deps: { rpc: RpcClient } & BillingRouteSettings): void {
  const { rpc } = deps;

  addRoute(app, createCheckoutRoute, async (request) =>
    rpc.request(createCheckoutRpc, { ...request.body, address_key: addressKey(request, deps.addressHashKey) }),
  );

  addRoute(app, verifyCheckoutRoute, async (request, reply) => {
    const sessionId = request.query.session_id ?? request.query.sid;
    if (!sessionId) throw new AppError('validation_failed', 'session_id is required.');
    return reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(verifyCheckoutRpc, { session_id: sessionId }));
  });

  addRoute(app, claimCheckoutRoute, async (request) => {
    const { caller } = request;
    const claimed = await rpc.request(claimCheckoutRpc, request.body, caller);
    if (claimed.org_id) await untilIdentityShows(rpc, caller, claimed.org_id, (org) => org.status === 'Active');
    return claimed;
  });

  addRoute(app, billingOverviewRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(
        await rpc.request(
          billingOverviewRpc,
          request.query.org_id ? { org_id: request.query.org_id } : {},
          request.caller,
        ),
      ),
  );

  const orgOf = (query: { org_id?: string | undefined }) => (query.org_id ? { org_id: query.org_id } : {});
  addRoute(app, billingDetailsRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(billingDetailsRpc, orgOf(request.query), request.caller)),
  );
  addRoute(app, setBillingDetailsRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(setBillingDetailsRpc, { ...request.body, ...orgOf(request.query) }, request.caller)),
  );

  const manageReturnPath = (request: RouteRequest<typeof manageBillingRoute>) => {
    const returnPath =
      request.query.return === undefined ? '/app/personal/billing' : safeNextPath(request.query.return);
    if (!returnPath) throw new AppError('validation_failed', 'The return path must be a path of this site.');
    return returnPath;
  };
  addRoute(
    app,
    manageBillingRoute,
    async (request, reply) => {
      const { url } = await rpc.request(
        manageBillingRpc,
        { return_path: manageReturnPath(request), ...(request.query.org_id ? { org_id: request.query.org_id } : {}) },
        request.caller,
      );
      if (wantsPage(request)) return reply.redirect(url);
      return { url };
    },
    {
      // A bad return path is refused first, as for anyone; a browser that is signed out goes to sign in.
      signedOut: (request, reply) => {
        const returnPath = manageReturnPath(request);
        return wantsPage(request) ? reply.redirect(`/login?next=${encodeURIComponent(returnPath)}`) : undefined;
      },
    },
  );

  addRoute(app, invoiceReceiptRoute, async (request, reply) => {
    // A malformed id names nobody's invoice: the same 404 as someone else's.
    if (!isUuid(request.params.id)) throw new AppError('not_found', 'Invoice not found.');
    const receipt = await rpc.request(
      invoiceReceiptRpc,
      { invoice_id: request.params.id.toLowerCase() },
      request.caller,
    );
    return reply.header('cache-control', 'no-store').send(receipt);
  });

  addRoute(app, changePlanRoute, async (request) => {
    const { caller } = request;
    const changed = await rpc.request(changePlanRpc, request.body, caller);
    const { org_id: orgId, plan } = changed.subscription;
    if (orgId && changed.takes_effect === 'now')
      await untilIdentityShows(rpc, caller, orgId, (org) => org.plan === plan);
    return changed;
  });

  addRoute(app, previewPlanChangeRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(previewPlanChangeRpc, request.query, request.caller)),
  );

  addRoute(app, resumeSubscriptionRoute, async (request) =>
    rpc.request(resumeSubscriptionRpc, request.body, request.caller),
  );

  addRoute(app, appCheckoutRoute, async (request) => {
    const { caller } = request;
    return rpc.request(
      appCheckoutRpc,
      { ...request.body, address_key: addressKey(request, deps.addressHashKey) },
      caller,
    );
  });

  if (deps.testPayments) {
    addRoute(app, testCheckoutRoute, async (request) =>
      rpc.request(testCheckoutInfoRpc, { session_id: request.params.id }),
    );
    addRoute(app, testCheckoutPayRoute, async (request) =>
      rpc.request(testCheckoutPayRpc, { session_id: request.params.id, ...request.body }),
    );
    addRoute(app, testPortalCancelRoute, async (request) =>
      rpc.request(testPortalCancelRpc, request.body, request.caller),
    );
    addRoute(app, testPortalCardRoute, async (request) => rpc.request(testPortalCardRpc, request.body, request.caller));
  }

  // Stripe signs the exact bytes it sent: this route keeps the body as text for billing to verify.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    addRoute(scope, stripeWebhookRoute, async (request) => {
      const signature = request.headers['stripe-signature'];
      if (typeof signature !== 'string' || typeof request.body !== 'string')
        throw new AppError('bad_request', 'The webhook signature does not match.');
      return rpc.request(stripeWebhookRpc, { payload: request.body, signature });
    });
  });
}
