import { Type } from 'typebox';
import {
  AppCheckoutRequestSchema,
  BillingDetailsSchema,
  BillingOverviewSchema,
  CancelOutcomeSchema,
  ChangePlanRequestSchema,
  CheckoutRequestSchema,
  CheckoutStartedSchema,
  CheckoutVerificationSchema,
  ClaimRequestSchema,
  ClaimResultSchema,
  PlanChangePreviewSchema,
  PlanChangeSchema,
  ResumedSubscriptionSchema,
  ResumeSubscriptionRequestSchema,
  ReceiptSchema,
  TestCheckoutSchema,
  TestPaidSchema,
  TestPaymentSchema,
  TestPortalCancelSchema,
  TestPortalCardSchema,
  CardChangedSchema,
  WebhookReceiptSchema,
} from '../billing/billing.rpc.ts';
import { safePathMaxLength } from '../redirects.ts';
import { defineRoute } from './route.ts';

const tags = ['billing'];
const SessionId = Type.String({ maxLength: 255 });
const OrgQuery = Type.Object({ org_id: Type.Optional(Type.String({ format: 'uuid' })) });

export const createCheckoutRoute = defineRoute({
  operationId: 'createCheckout',
  method: 'POST',
  url: '/api/checkout',
  access: 'public',
  tags,
  summary: 'Start a checkout for a plan; answers the payment page to send the browser to',
  body: CheckoutRequestSchema,
  response: { 200: CheckoutStartedSchema },
});

export const VerifyCheckoutQuerySchema = Type.Object({
  session_id: Type.Optional(SessionId),
  sid: Type.Optional(SessionId),
});

export const verifyCheckoutRoute = defineRoute({
  operationId: 'verifyCheckout',
  method: 'GET',
  url: '/api/checkout/verify',
  access: 'public',
  tags,
  summary: 'What was paid in a checkout (session id from sid or session_id)',
  querystring: VerifyCheckoutQuerySchema,
  response: { 200: CheckoutVerificationSchema },
});

export const claimCheckoutRoute = defineRoute({
  operationId: 'claimCheckout',
  method: 'POST',
  url: '/api/checkout/claim',
  access: 'signed-in',
  tags,
  summary:
    'Add a paid checkout to the signed-in account (its email must be the one that paid, and confirmed unless the account is newer than the payment)',
  body: ClaimRequestSchema,
  response: { 200: ClaimResultSchema },
});

export const billingOverviewRoute = defineRoute({
  operationId: 'billingOverview',
  method: 'GET',
  url: '/api/billing',
  access: 'signed-in',
  tags,
  summary: 'Current plan and invoices (newest period first)',
  querystring: OrgQuery,
  response: { 200: BillingOverviewSchema },
});

/** Billing details for invoices (issue #26): the caller's own, or an organization's (owners and admins read). */
export const billingDetailsRoute = defineRoute({
  operationId: 'billingDetails',
  method: 'GET',
  url: '/api/billing/details',
  access: 'signed-in',
  tags,
  summary:
    "Billing details for invoices (company name, address, VAT ID): the caller's own, or an organization's for its owners and admins",
  querystring: OrgQuery,
  response: { 200: BillingDetailsSchema },
});

export const setBillingDetailsRoute = defineRoute({
  operationId: 'setBillingDetails',
  method: 'POST',
  url: '/api/billing/details',
  access: 'signed-in',
  tags,
  summary:
    "Set the billing details every receipt shows: the caller's own, or an organization's by its owners (an empty field clears it)",
  querystring: OrgQuery,
  body: BillingDetailsSchema,
  response: { 200: BillingDetailsSchema },
});

export const ManageBillingQuerySchema = Type.Object({
  return: Type.Optional(
    Type.String({ maxLength: safePathMaxLength, description: 'a path of this site (safeNextPath) to come back to' }),
  ),
  org_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export const manageBillingRoute = defineRoute({
  operationId: 'manageBilling',
  method: 'GET',
  url: '/api/billing/manage',
  access: 'signed-in',
  tags,
  summary: 'The billing portal. With a token: its address as JSON; opened as a page without one: sign in first',
  querystring: ManageBillingQuerySchema,
  response: {
    200: Type.Object({ url: Type.String() }),
    302: Type.Null({ description: 'a page (Accept: text/html): to the portal, or to sign in first' }),
  },
});

export const invoiceReceiptRoute = defineRoute({
  operationId: 'invoiceReceipt',
  method: 'GET',
  url: '/api/billing/invoices/:id',
  access: 'signed-in',
  tags,
  summary:
    "One invoice as its receipt shows it: for its person, or an organization's owners and admins (anyone else: 404)",
  params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
  response: { 200: ReceiptSchema },
});

export const changePlanRoute = defineRoute({
  operationId: 'changePlan',
  method: 'POST',
  url: '/api/billing/change-plan',
  access: 'signed-in',
  tags,
  summary:
    "Change a subscription's plan within its account type (its person, or an organization's owners): an upgrade now with the rest of the period charged at once, a downgrade from the next renewal; the current plan again calls off a pending downgrade",
  body: ChangePlanRequestSchema,
  response: { 200: PlanChangeSchema },
});

export const previewPlanChangeRoute = defineRoute({
  operationId: 'previewPlanChange',
  method: 'GET',
  url: '/api/billing/change-plan/preview',
  access: 'signed-in',
  tags,
  summary:
    'What a plan change would do (when, what is charged now, the next renewal), refused as the change itself would be',
  querystring: ChangePlanRequestSchema,
  response: { 200: PlanChangePreviewSchema },
});

export const resumeSubscriptionRoute = defineRoute({
  operationId: 'resumeSubscription',
  method: 'POST',
  url: '/api/billing/resume',
  access: 'signed-in',
  tags,
  summary: "Call off a cancellation set for the end of the period (its person, or an organization's owners)",
  body: ResumeSubscriptionRequestSchema,
  response: { 200: ResumedSubscriptionSchema },
});

export const appCheckoutRoute = defineRoute({
  operationId: 'appCheckout',
  method: 'POST',
  url: '/api/billing/checkout',
  access: 'signed-in',
  tags,
  summary:
    'Start a checkout as the signed-in person (a plan again after one ended, or a Business plan with the name of the organization it makes); the payment page comes back to the app',
  body: AppCheckoutRequestSchema,
  response: { 200: CheckoutStartedSchema },
});

export const stripeWebhookRoute = defineRoute({
  operationId: 'stripeWebhook',
  method: 'POST',
  url: '/api/billing/webhook',
  access: 'webhook',
  tags,
  summary: 'Stripe webhooks (signature checked by billing)',
  response: { 200: WebhookReceiptSchema },
});

const TestCheckoutParams = Type.Object({ id: SessionId });

export const testCheckoutRoute = defineRoute({
  operationId: 'testCheckout',
  method: 'GET',
  url: '/api/billing/test-checkout/:id',
  access: 'public',
  tags,
  summary: "The test checkout page's data (local test provider only)",
  params: TestCheckoutParams,
  response: { 200: TestCheckoutSchema },
});

export const testCheckoutPayRoute = defineRoute({
  operationId: 'testCheckoutPay',
  method: 'POST',
  url: '/api/billing/test-checkout/:id/pay',
  access: 'public',
  tags,
  summary: 'Pay a test checkout (no card is charged)',
  params: TestCheckoutParams,
  body: TestPaymentSchema,
  response: { 200: TestPaidSchema },
});

export const testPortalCancelRoute = defineRoute({
  operationId: 'testPortalCancel',
  method: 'POST',
  url: '/api/billing/test-portal/cancel',
  access: 'signed-in',
  tags,
  summary:
    'Cancel from the test billing portal (refunded in full within 7 days of the first payment, once per customer)',
  body: TestPortalCancelSchema,
  response: { 200: CancelOutcomeSchema },
});

export const testPortalCardRoute = defineRoute({
  operationId: 'testPortalCard',
  method: 'POST',
  url: '/api/billing/test-portal/card',
  access: 'signed-in',
  tags,
  summary: 'Update the card in the test billing portal: renewals use it, and a failed renewal is paid with it at once',
  body: TestPortalCardSchema,
  response: { 200: CardChangedSchema },
});

/** The local test provider's routes: they exist only where it may take payments. */
export const testProviderRoutes = [testCheckoutRoute, testCheckoutPayRoute, testPortalCancelRoute, testPortalCardRoute];

export const billingRoutes = [
  createCheckoutRoute,
  verifyCheckoutRoute,
  claimCheckoutRoute,
  billingOverviewRoute,
  billingDetailsRoute,
  setBillingDetailsRoute,
  manageBillingRoute,
  invoiceReceiptRoute,
  changePlanRoute,
  previewPlanChangeRoute,
  resumeSubscriptionRoute,
  appCheckoutRoute,
  stripeWebhookRoute,
  ...testProviderRoutes,
];
