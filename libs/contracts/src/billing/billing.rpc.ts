import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });
const SessionId = Type.String({ minLength: 1, maxLength: 255 });

export const CheckoutRequestSchema = Type.Object({
  plan_code: Type.String({ maxLength: 64 }),
  plan_name: Type.Optional(Type.String({ maxLength: 128 })),
  account_type: Type.Optional(Type.String({ maxLength: 32 })),
  /** Spec §9: checkout quantity is always 1. */
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1 })),
  customer_email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
});
export const CheckoutStartedSchema = Type.Object({ url: Type.String(), session_id: Type.String() });

export const CheckoutVerificationSchema = Type.Object({
  email: Type.String(),
  plan_code: Type.String(),
  account_type: Type.String(),
  quantity: Type.Integer(),
});

export const SubscriptionViewSchema = Type.Object({
  id: Uuid,
  plan: Type.String(),
  status: Type.String(),
  renews_at: Type.Union([Type.String(), Type.Null()]),
  cancel_at_period_end: Type.Boolean(),
  org_id: Type.Union([Uuid, Type.Null()]),
  /** A downgrade chosen for the end of the period: the plan it renews on. */
  pending_plan: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** The card it renews with ('Visa ending in 4242'), when the provider said. */
  card: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type SubscriptionView = Static<typeof SubscriptionViewSchema>;
export const InvoiceViewSchema = Type.Object({
  id: Uuid,
  amount_cents: Type.Integer(),
  currency: Type.String(),
  status: Type.String(),
  period_start: Type.String(),
  period_end: Type.String(),
  paid_at: Type.Union([Type.String(), Type.Null()]),
  /** Its number as customers see it (QW-000123); a receipt at /billing/invoices/{id}. */
  number: Type.Optional(Type.String()),
  /** What it is for ("Upgrade from Personal to Gaming, prorated for 24 Nov – 24 Dec"), issue #26. */
  description: Type.Optional(Type.String()),
});
export const BillingOverviewSchema = Type.Object({
  subscription: Type.Union([SubscriptionViewSchema, Type.Null()]),
  invoices: Type.Array(InvoiceViewSchema),
  provider: Type.Union([Type.Literal('stripe'), Type.Literal('test')]),
});
export type BillingOverview = Static<typeof BillingOverviewSchema>;

export const createCheckoutRpc = defineRpc(
  'billing.rpc.create-checkout',
  Type.Object({
    ...CheckoutRequestSchema.properties,
    /** An HMAC of the client's address made by the gateway: checkout creation is limited per address. */
    address_key: Type.String({ minLength: 1, maxLength: 128 }),
  }),
  CheckoutStartedSchema,
);
export const verifyCheckoutRpc = defineRpc(
  'billing.rpc.verify-checkout',
  Type.Object({ session_id: SessionId }),
  CheckoutVerificationSchema,
);
/** Billing asks identity itself who the caller is (e-mail, confirmed, since when) before it hands over a purchase. */
export const ClaimRequestSchema = Type.Object({
  session_id: SessionId,
  email: Type.String({ maxLength: 254 }),
  plan_code: Type.Optional(Type.String({ maxLength: 64 })),
  account_type: Type.Optional(Type.String({ maxLength: 32 })),
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1 })),
  /**
   * A Business plan bought for an organization the caller owns, whose plan ended (it becomes
   * Active again); without it a Business plan makes a new organization.
   */
  org_id: Type.Optional(Uuid),
  /**
   * The new organization's name, chosen by the buyer on the page after the payment (a Business
   * plan); without it, the name given at an in-app checkout, else one made from the buyer's name.
   */
  org_name: Type.Optional(Type.String({ maxLength: 200 })),
});
export const ClaimResultSchema = Type.Object({
  subscription_id: Uuid,
  account_type: Type.String(),
  org_id: Type.Union([Uuid, Type.Null()]),
});
export const claimCheckoutRpc = defineRpc('billing.rpc.claim-checkout', ClaimRequestSchema, ClaimResultSchema);
export const billingOverviewRpc = defineRpc(
  'billing.rpc.overview',
  Type.Object({ org_id: Type.Optional(Uuid) }),
  BillingOverviewSchema,
);
export const manageBillingRpc = defineRpc(
  'billing.rpc.manage',
  Type.Object({ return_path: Type.String({ pattern: '^/' }), org_id: Type.Optional(Uuid) }),
  Type.Object({ url: Type.String() }),
);

/**
 * One invoice as its receipt shows it (issue #15): for its person, or for an organization's
 * invoice its owners and admins; anyone else (a member too) gets the same 404 as an unknown id.
 */
export const ReceiptSchema = Type.Object({
  id: Uuid,
  /** QW-000123 */
  number: Type.String(),
  status: Type.String(),
  plan_code: Type.String(),
  plan_name: Type.String(),
  /** What it is for, as the invoice list says it (issue #26). */
  description: Type.String(),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  period_start: Type.String(),
  period_end: Type.String(),
  paid_at: Type.Union([Type.String(), Type.Null()]),
  /** When it was issued: when paid, or when it was recorded (a failed one). */
  issued_at: Type.String(),
  /** The address that paid (the checkout's e-mail); null when none is known. */
  buyer_email: Type.Union([Type.String(), Type.Null()]),
  org_id: Type.Union([Uuid, Type.Null()]),
  /** 'Visa ending in 4242', when the provider said. */
  card: Type.Union([Type.String(), Type.Null()]),
  /** The buyer's billing details as they are now (issue #26); null when none were set. */
  billing_details: Type.Optional(
    Type.Union([
      Type.Object({ company_name: Type.String(), address: Type.String(), vat_id: Type.String() }),
      Type.Null(),
    ]),
  ),
  refunds: Type.Array(
    Type.Object({
      id: Uuid,
      amount_cents: Type.Integer(),
      status: Type.String(),
      issued_at: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type Receipt = Static<typeof ReceiptSchema>;

/**
 * Billing details for invoices (issue #26): company name, address and VAT ID, each optional (an
 * empty string: none). A person sets their own; an organization's owners set its (admins read).
 */
export const BillingDetailsSchema = Type.Object({
  company_name: Type.String({ maxLength: 200 }),
  address: Type.String({ maxLength: 500 }),
  vat_id: Type.String({ maxLength: 32 }),
});
export type BillingDetails = Static<typeof BillingDetailsSchema>;
export const billingDetailsRpc = defineRpc(
  'billing.rpc.billing-details',
  Type.Object({ org_id: Type.Optional(Uuid) }),
  BillingDetailsSchema,
);
/**
 * Service to service (identity's receipt mail, at sending time): what a paid invoice is for and
 * the billing details it is issued to, so the mailed receipt says what the printable one says.
 * Billing details stay out of events (a stream keeps them past an account's deletion).
 */
export const receiptMailFactsRpc = defineRpc(
  'billing.rpc.receipt-mail-facts',
  Type.Object({ invoice_id: Uuid }),
  Type.Object({ description: Type.String(), billing_details: Type.Union([BillingDetailsSchema, Type.Null()]) }),
);
export const setBillingDetailsRpc = defineRpc(
  'billing.rpc.set-billing-details',
  Type.Object({ ...BillingDetailsSchema.properties, org_id: Type.Optional(Uuid) }),
  BillingDetailsSchema,
);
export const invoiceReceiptRpc = defineRpc(
  'billing.rpc.invoice-receipt',
  Type.Object({ invoice_id: Uuid }),
  ReceiptSchema,
);

/** The local test provider's own pages (no card is charged). */
export const TestCheckoutSchema = Type.Object({
  session_id: Type.String(),
  plan_code: Type.String(),
  plan_name: Type.String(),
  amount_cents: Type.Integer(),
  currency: Type.String(),
  status: Type.String(),
  /** The clock this checkout and its subscription run on (advance-clock takes it). */
  test_clock_id: Type.Union([Uuid, Type.Null()]),
});
export const testCheckoutInfoRpc = defineRpc(
  'billing.rpc.test-checkout-info',
  Type.Object({ session_id: SessionId }),
  TestCheckoutSchema,
);
export const TestPaymentSchema = Type.Object({
  email: Type.String({ maxLength: 254 }),
  card_number: Type.String({ maxLength: 32 }),
});
export const TestPaidSchema = Type.Object({ redirect_url: Type.String() });
export const testCheckoutPayRpc = defineRpc(
  'billing.rpc.test-checkout-pay',
  Type.Object({ session_id: SessionId, ...TestPaymentSchema.properties }),
  TestPaidSchema,
);
export const CancelOutcomeSchema = Type.Object({
  status: Type.String(),
  refunded_cents: Type.Integer(),
  cancel_at_period_end: Type.Boolean(),
  /** refunded: the 7-day money-back refund; already_used: this customer had it once, so not again. */
  money_back: Type.Union([Type.Literal('refunded'), Type.Literal('already_used'), Type.Literal('none')]),
});
export type CancelOutcome = Static<typeof CancelOutcomeSchema>;
export const TestPortalCancelSchema = Type.Object({ subscription_id: Uuid });
export const testPortalCancelRpc = defineRpc(
  'billing.rpc.test-portal-cancel',
  TestPortalCancelSchema,
  CancelOutcomeSchema,
);
/** The test portal's "Update card": renewals use the new card; a failed renewal is paid with it at once. */
export const TestPortalCardSchema = Type.Object({ subscription_id: Uuid, card_number: Type.String({ maxLength: 32 }) });
export const CardChangedSchema = Type.Object({
  /** 'Visa ending in 4242' */
  card: Type.String(),
  /** What the failed renewals it paid came to (0: none were owed). */
  settled_cents: Type.Integer({ minimum: 0 }),
});
export type CardChanged = Static<typeof CardChangedSchema>;
export const testPortalCardRpc = defineRpc('billing.rpc.test-portal-card', TestPortalCardSchema, CardChangedSchema);
/** Moves one test clock (never in production, only with the test provider); its due renewals run at once. */
export const advanceClockRpc = defineRpc(
  'billing.rpc.advance-clock',
  Type.Object({ clock_id: Uuid, days: Type.Number({ minimum: 0, maximum: 3650 }) }),
  Type.Object({ clock_id: Uuid, now: Type.String() }),
);

/**
 * Sets an unpaid test checkout's clock to a moment of the past, as a Stripe test clock is created
 * at a chosen time: the demo history buys plans two years ago and advances from there. Refused
 * once the checkout is paid, and without the test clock.
 */
export const startClockRpc = defineRpc(
  'billing.rpc.start-clock',
  Type.Object({ clock_id: Uuid, at: Type.String({ format: 'date-time' }) }),
  Type.Object({ clock_id: Uuid, now: Type.String() }),
);

/**
 * A plan change by the subscription's owner (a person's own plan; an organization's owners), to
 * another plan of the same account type. An upgrade takes effect now and charges the difference
 * for the rest of the period at once (Stripe's always_invoice proration; the test provider does
 * the same sums); a downgrade takes effect at the period's end, when the renewal charges the new
 * price. Choosing the current plan again calls off a pending downgrade.
 */
export const ChangePlanRequestSchema = Type.Object({
  subscription_id: Uuid,
  plan_code: Type.String({ maxLength: 64 }),
});
export const PlanChangeSchema = Type.Object({
  subscription: SubscriptionViewSchema,
  takes_effect: Type.Union([Type.Literal('now'), Type.Literal('period_end')]),
  /** What the upgrade charged at once (0 for a downgrade or a called-off one). */
  charged_cents: Type.Integer({ minimum: 0 }),
});
export type PlanChange = Static<typeof PlanChangeSchema>;
export const changePlanRpc = defineRpc('billing.rpc.change-plan', ChangePlanRequestSchema, PlanChangeSchema);

/**
 * What a plan change would do, before it is made (the Billing page's Change plan shows it): when it
 * takes effect, what is charged at once (the same proration the change charges), and the next
 * renewal's amount and date. Refused exactly as the change itself would be.
 */
export const PlanChangePreviewSchema = Type.Object({
  plan_code: Type.String(),
  takes_effect: Type.Union([Type.Literal('now'), Type.Literal('period_end')]),
  charge_now_cents: Type.Integer({ minimum: 0 }),
  next_charge_cents: Type.Integer({ minimum: 0 }),
  next_charge_at: Type.Union([Type.String(), Type.Null()]),
});
export type PlanChangePreview = Static<typeof PlanChangePreviewSchema>;
export const previewPlanChangeRpc = defineRpc(
  'billing.rpc.preview-plan-change',
  ChangePlanRequestSchema,
  PlanChangePreviewSchema,
);

/** Calls off a cancellation set for the period's end (its person, or an organization's owners): it renews again. */
export const ResumeSubscriptionRequestSchema = Type.Object({ subscription_id: Uuid });
export const ResumedSubscriptionSchema = Type.Object({ subscription: SubscriptionViewSchema });
export const resumeSubscriptionRpc = defineRpc(
  'billing.rpc.resume-subscription',
  ResumeSubscriptionRequestSchema,
  ResumedSubscriptionSchema,
);

/**
 * A checkout started inside the app by a signed-in person (a new plan after one ended, a Business
 * plan that makes an organization they own, named `org_name`, or one that pays again for their
 * organization `org_id` whose plan ended): the payment page comes back to the app, where the
 * purchase is claimed for them.
 */
export const AppCheckoutRequestSchema = Type.Object({
  plan_code: Type.String({ maxLength: 64 }),
  org_name: Type.Optional(Type.String({ maxLength: 200 })),
  /** A Business plan for an organization the caller owns whose plan ended (instead of a new one). */
  org_id: Type.Optional(Uuid),
});
export const appCheckoutRpc = defineRpc(
  'billing.rpc.app-checkout',
  Type.Object({
    ...AppCheckoutRequestSchema.properties,
    /** The gateway's HMAC of the client's address: counted with the public checkouts. */
    address_key: Type.String({ minLength: 1, maxLength: 128 }),
  }),
  CheckoutStartedSchema,
);

export const stripeWebhookRpc = defineRpc(
  'billing.rpc.stripe-webhook',
  Type.Object({
    payload: Type.String({ maxLength: 1_000_000 }),
    signature: Type.String({ maxLength: 2000 }),
  }),
  Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean() }),
);
export const WebhookReceiptSchema = stripeWebhookRpc.response;

/** Subscription statuses that entitle the owner to devices (past_due: Stripe is still retrying the card). */
export const entitlingStatuses = ['active', 'past_due'] as const;

export const ActivePlanSchema = Type.Object({ plan_code: Type.String(), status: Type.String(), subscription_id: Uuid });
export type ActivePlan = Static<typeof ActivePlanSchema>;
/**
 * Service to service (no user caller): the owner's subscription that entitles it now, straight
 * from billing's records, for provisioning when its projection of billing's events has nothing
 * yet (a claim answered a few milliseconds ago). Exactly one of `user_id` (a personal plan) or
 * `org_id` (an organization's plan).
 */
export const activePlanRpc = defineRpc(
  'billing.rpc.active-plan',
  Type.Object({ user_id: Type.Optional(Uuid), org_id: Type.Optional(Uuid) }),
  Type.Object({ plan: Type.Union([ActivePlanSchema, Type.Null()]) }),
);

/**
 * The operator console's users page (platform admins only): each person's current personal plan
 * (an entitling subscription of their own, not an organization's), for one page of user ids.
 */
export const adminUserPlansRpc = defineRpc(
  'billing.rpc.admin-user-plans',
  Type.Object({ user_ids: Type.Array(Uuid, { maxItems: 100 }) }),
  Type.Object({
    plans: Type.Array(Type.Object({ user_id: Uuid, plan_code: Type.Union([Type.String(), Type.Null()]) })),
  }),
);
