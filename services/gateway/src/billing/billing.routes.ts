import { Type } from 'typebox';
import {
  AppError, BillingOverviewSchema, CheckoutVerificationSchema, billingOverviewRpc, claimCheckoutRpc, createCheckoutRpc, getMeRpc,
  manageBillingRpc, stripeWebhookRpc, testCheckoutInfoRpc, testCheckoutPayRpc, testPortalCancelRpc, verifyCheckoutRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { requireSignedIn } from '../auth/caller.ts';

const tags = ['billing'];
const security = [{ bearer: [] }];

export function registerBillingRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  app.post('/api/checkout', {
    schema: {
      tags, summary: 'Start a checkout for a plan; answers the payment page to send the browser to',
      body: Type.Object({
        plan_code: Type.String({ maxLength: 64 }),
        plan_name: Type.Optional(Type.String({ maxLength: 128 })),
        account_type: Type.Optional(Type.String({ maxLength: 32 })),
        quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1 })),
        customer_email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
      }),
      response: { 200: Type.Object({ url: Type.String(), session_id: Type.String() }) },
    },
  }, async (request) => rpc.request(createCheckoutRpc, request.body));

  app.get('/api/checkout/verify', {
    schema: {
      tags, summary: 'What was paid in a checkout (session id from sid or session_id)',
      querystring: Type.Object({ session_id: Type.Optional(Type.String({ maxLength: 255 })), sid: Type.Optional(Type.String({ maxLength: 255 })) }),
      response: { 200: CheckoutVerificationSchema },
    },
  }, async (request, reply) => {
    const sessionId = request.query.session_id ?? request.query.sid;
    if (!sessionId) throw new AppError('validation_failed', 'session_id is required.');
    return reply.header('cache-control', 'no-store').send(await rpc.request(verifyCheckoutRpc, { session_id: sessionId }));
  });

  app.post('/api/checkout/claim', {
    schema: {
      tags, security, summary: 'Add a paid checkout to the signed-in account (its email must be the one that paid)',
      body: Type.Object({
        session_id: Type.String({ minLength: 1, maxLength: 255 }),
        email: Type.String({ maxLength: 254 }),
        plan_code: Type.Optional(Type.String()),
        account_type: Type.Optional(Type.String()),
        quantity: Type.Optional(Type.Integer()),
      }),
      response: { 200: Type.Object({ subscription_id: Type.String(), account_type: Type.String(), org_id: Type.Union([Type.String(), Type.Null()]) }) },
    },
  }, async (request) => {
    const caller = requireSignedIn(request);
    const me = await rpc.request(getMeRpc, {}, caller);
    return rpc.request(claimCheckoutRpc, { ...request.body, claimer_email: me.user.email }, caller);
  });

  app.get('/api/billing', {
    schema: { tags, security, summary: 'Current plan and invoices (newest period first)', querystring: Type.Object({ org_id: Type.Optional(Type.String({ format: 'uuid' })) }), response: { 200: BillingOverviewSchema } },
  }, async (request, reply) => reply.header('cache-control', 'no-store').send(await rpc.request(billingOverviewRpc, request.query.org_id ? { org_id: request.query.org_id } : {}, requireSignedIn(request))));

  app.get('/api/billing/manage', {
    schema: {
      tags, security, summary: 'The billing portal. With a token: its address as JSON; opened as a page without one: sign in first',
      querystring: Type.Object({ return: Type.Optional(Type.String({ pattern: '^/(?![/\\\\])', maxLength: 200 })), org_id: Type.Optional(Type.String({ format: 'uuid' })) }),
    },
  }, async (request, reply) => {
    const returnPath = request.query.return ?? '/app/personal/billing';
    if (!request.caller.userId) {
      if (request.headers.accept?.includes('text/html')) return reply.redirect(`/login?next=${encodeURIComponent(returnPath)}`);
      throw new AppError('not_signed_in', 'Not signed in');
    }
    const { url } = await rpc.request(manageBillingRpc, { return_path: returnPath, ...(request.query.org_id ? { org_id: request.query.org_id } : {}) }, request.caller);
    if (request.headers.accept?.includes('text/html')) return reply.redirect(url);
    return { url };
  });

  app.get('/api/billing/test-checkout/:id', {
    schema: { tags, summary: 'The test checkout page\'s data (local test provider only)', params: Type.Object({ id: Type.String({ maxLength: 255 }) }) },
  }, async (request) => rpc.request(testCheckoutInfoRpc, { session_id: request.params.id }));

  app.post('/api/billing/test-checkout/:id/pay', {
    schema: {
      tags, summary: 'Pay a test checkout (no card is charged)',
      params: Type.Object({ id: Type.String({ maxLength: 255 }) }),
      body: Type.Object({ email: Type.String({ maxLength: 254 }), card_number: Type.String({ maxLength: 32 }) }),
      response: { 200: Type.Object({ redirect_url: Type.String() }) },
    },
  }, async (request) => rpc.request(testCheckoutPayRpc, { session_id: request.params.id, ...request.body }));

  app.post('/api/billing/test-portal/cancel', {
    schema: { tags, security, summary: 'Cancel from the test billing portal (refunded in full within 7 days of the first payment)', body: Type.Object({ subscription_id: Type.String({ format: 'uuid' }) }) },
  }, async (request) => rpc.request(testPortalCancelRpc, request.body, requireSignedIn(request)));

  // Stripe signs the exact bytes it sent: this route keeps the body as text for billing to verify.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/api/billing/webhook', { schema: { tags, summary: 'Stripe webhooks (signature checked by billing)' } }, async (request, reply) => {
      const signature = request.headers['stripe-signature'];
      if (typeof signature !== 'string' || typeof request.body !== 'string') throw new AppError('bad_request', 'The webhook signature does not match.');
      const result = await rpc.request(stripeWebhookRpc, { payload: request.body, signature });
      return reply.status(200).send(result);
    });
  });
}
