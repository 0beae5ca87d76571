import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

const Uuid = Type.String({ format: 'uuid' });
const NullableUuid = Type.Union([Uuid, Type.Null()]);
const When = Type.String({ format: 'date-time' });
const Owner = { userId: NullableUuid, orgId: NullableUuid };
/**
 * What a receipt names (issue #15; optional, so older events still read): the invoice's number
 * (`invoiceNumberText` shows it as QW-000123) and the card that paid, as the provider reports it.
 */
const ReceiptFacts = {
  invoiceNumber: Type.Optional(Type.Integer({ minimum: 1 })),
  cardBrand: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  cardLast4: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9]{4}$' }), Type.Null()])),
};
/** Why an invoice was charged: the first payment, a renewal, or an upgrade's proration. */
const InvoiceReason = Type.Optional(
  Type.Union([Type.Literal('checkout'), Type.Literal('renewal'), Type.Literal('plan_change')]),
);

/** A checkout was paid. Nobody owns it yet: the buyer claims it after creating an account. */
export const checkoutCompleted = defineEvent(
  'billing.checkout.completed',
  1,
  Type.Object({
    sessionId: Type.String(),
    planCode: Type.String(),
    accountType: Type.String(),
    seats: Type.Integer({ minimum: 1 }),
    amountCents: Type.Integer({ minimum: 0 }),
    currency: Type.String(),
    /** When it was paid, on the checkout's clock (a test clock may run ahead of real time). */
    paidAt: Type.Optional(When),
  }),
);

/** The buyer's account took the purchase. For business plans `orgId` is the new organization. */
export const purchaseClaimed = defineEvent(
  'billing.purchase.claimed',
  1,
  Type.Object({
    userId: Uuid,
    subscriptionId: Uuid,
    planCode: Type.String(),
    accountType: Type.Union([Type.Literal('personal'), Type.Literal('business')]),
    seats: Type.Integer({ minimum: 1 }),
    orgId: NullableUuid,
    /** The name the buyer chose for the new organization (a Business plan bought in the app). */
    orgName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /**
     * The checkout's paid invoice, when it was recorded before the claim (it had no owner then,
     * so its `billing.invoice.paid` named nobody): identity mails its receipt from here.
     */
    invoice: Type.Optional(
      Type.Union([
        Type.Object({
          invoiceId: Uuid,
          planCode: Type.String(),
          amountCents: Type.Integer({ minimum: 0 }),
          currency: Type.String(),
          paidAt: When,
          periodStart: When,
          periodEnd: When,
          ...ReceiptFacts,
        }),
        Type.Null(),
      ]),
    ),
  }),
);

const SubscriptionState = {
  subscriptionId: Uuid,
  ...Owner,
  planCode: Type.String(),
  status: Type.String(),
  currentPeriodEnd: Type.Union([When, Type.Null()]),
  cancelAtPeriodEnd: Type.Boolean(),
  /**
   * Added for analytics (optional, so older events still read): when the subscription began (the
   * start of its first paid period), when this state took effect, both on the subscription's
   * clock (the provider's time; a test clock's time in tests and the demo), and its price per
   * month in cents. A plan change says the plan and price it moved to, and when.
   */
  startedAt: Type.Optional(When),
  effectiveAt: Type.Optional(When),
  monthlyCents: Type.Optional(Type.Integer({ minimum: 0 })),
  /** A downgrade waiting for the period's end: the plan it moves to then. */
  pendingPlanCode: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

/** A subscription gained an owner and is active (entitlements start here). */
export const subscriptionActivated = defineEvent('billing.subscription.activated', 1, Type.Object(SubscriptionState));
export const subscriptionUpdated = defineEvent('billing.subscription.updated', 1, Type.Object(SubscriptionState));
export const subscriptionCanceled = defineEvent(
  'billing.subscription.canceled',
  1,
  Type.Object({ ...SubscriptionState, canceledAt: When }),
);

export const invoicePaid = defineEvent(
  'billing.invoice.paid',
  1,
  Type.Object({
    invoiceId: Uuid,
    subscriptionId: NullableUuid,
    ...Owner,
    planCode: Type.String(),
    amountCents: Type.Integer({ minimum: 0 }),
    currency: Type.String(),
    periodStart: When,
    periodEnd: When,
    paidAt: When,
    reason: InvoiceReason,
    ...ReceiptFacts,
  }),
);

export const invoicePaymentFailed = defineEvent(
  'billing.invoice.payment_failed',
  1,
  Type.Object({
    invoiceId: Uuid,
    subscriptionId: NullableUuid,
    ...Owner,
    planCode: Type.String(),
    amountCents: Type.Integer({ minimum: 0 }),
    attemptedAt: When,
    currency: Type.Optional(Type.String()),
    ...ReceiptFacts,
  }),
);

export const refundIssued = defineEvent(
  'billing.refund.issued',
  1,
  Type.Object({
    refundId: Uuid,
    invoiceId: Uuid,
    subscriptionId: NullableUuid,
    ...Owner,
    amountCents: Type.Integer({ minimum: 0 }),
    issuedAt: When,
    currency: Type.Optional(Type.String()),
    planCode: Type.Optional(Type.String()),
    invoiceNumber: Type.Optional(Type.Integer({ minimum: 1 })),
    /**
     * The operator who asked for this refund (issue #26; absent: the customer's own). Identity
     * writes the operators' audit line (`user.refunded`) from it, once per refund.
     */
    refundedBy: Type.Optional(Uuid),
  }),
);

export const billingEvents = [
  checkoutCompleted,
  purchaseClaimed,
  subscriptionActivated,
  subscriptionUpdated,
  subscriptionCanceled,
  invoicePaid,
  invoicePaymentFailed,
  refundIssued,
];
