import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

const Uuid = Type.String({ format: 'uuid' });
const NullableUuid = Type.Union([Uuid, Type.Null()]);
const When = Type.String({ format: 'date-time' });
const Owner = { userId: NullableUuid, orgId: NullableUuid };

/** A checkout was paid. Nobody owns it yet: the buyer claims it after creating an account. */
export const checkoutCompleted = defineEvent('billing.checkout.completed', 1, Type.Object({
  sessionId: Type.String(),
  planCode: Type.String(),
  accountType: Type.String(),
  seats: Type.Integer({ minimum: 1 }),
  amountCents: Type.Integer({ minimum: 0 }),
  currency: Type.String(),
}));

/** The buyer's account took the purchase. For business plans `orgId` is the new organization. */
export const purchaseClaimed = defineEvent('billing.purchase.claimed', 1, Type.Object({
  userId: Uuid,
  subscriptionId: Uuid,
  planCode: Type.String(),
  accountType: Type.Union([Type.Literal('personal'), Type.Literal('business')]),
  seats: Type.Integer({ minimum: 1 }),
  orgId: NullableUuid,
}));

const SubscriptionState = {
  subscriptionId: Uuid,
  ...Owner,
  planCode: Type.String(),
  status: Type.String(),
  currentPeriodEnd: Type.Union([When, Type.Null()]),
  cancelAtPeriodEnd: Type.Boolean(),
};

/** A subscription gained an owner and is active (entitlements start here). */
export const subscriptionActivated = defineEvent('billing.subscription.activated', 1, Type.Object(SubscriptionState));
export const subscriptionUpdated = defineEvent('billing.subscription.updated', 1, Type.Object(SubscriptionState));
export const subscriptionCanceled = defineEvent('billing.subscription.canceled', 1, Type.Object({ ...SubscriptionState, canceledAt: When }));

export const invoicePaid = defineEvent('billing.invoice.paid', 1, Type.Object({
  invoiceId: Uuid,
  subscriptionId: NullableUuid,
  ...Owner,
  planCode: Type.String(),
  amountCents: Type.Integer({ minimum: 0 }),
  currency: Type.String(),
  periodStart: When,
  periodEnd: When,
  paidAt: When,
}));

export const invoicePaymentFailed = defineEvent('billing.invoice.payment_failed', 1, Type.Object({
  invoiceId: Uuid,
  subscriptionId: NullableUuid,
  ...Owner,
  planCode: Type.String(),
  amountCents: Type.Integer({ minimum: 0 }),
  attemptedAt: When,
}));

export const refundIssued = defineEvent('billing.refund.issued', 1, Type.Object({
  refundId: Uuid,
  invoiceId: Uuid,
  subscriptionId: NullableUuid,
  ...Owner,
  amountCents: Type.Integer({ minimum: 0 }),
  issuedAt: When,
}));

export const billingEvents = [checkoutCompleted, purchaseClaimed, subscriptionActivated, subscriptionUpdated, subscriptionCanceled, invoicePaid, invoicePaymentFailed, refundIssued];
