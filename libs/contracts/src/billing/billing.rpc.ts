import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });
const SessionId = Type.String({ minLength: 1, maxLength: 255 });

export const CheckoutRequestSchema = Type.Object({
  plan_code: Type.String({ maxLength: 64 }),
  plan_name: Type.Optional(Type.String({ maxLength: 128 })),
  account_type: Type.Optional(Type.String({ maxLength: 32 })),
  quantity: Type.Optional(Type.Integer()),
  customer_email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
});

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
});
export const InvoiceViewSchema = Type.Object({
  id: Uuid,
  amount_cents: Type.Integer(),
  currency: Type.String(),
  status: Type.String(),
  period_start: Type.String(),
  period_end: Type.String(),
  paid_at: Type.Union([Type.String(), Type.Null()]),
});
export const BillingOverviewSchema = Type.Object({
  subscription: Type.Union([SubscriptionViewSchema, Type.Null()]),
  invoices: Type.Array(InvoiceViewSchema),
  provider: Type.Union([Type.Literal('stripe'), Type.Literal('test')]),
});
export type BillingOverview = Static<typeof BillingOverviewSchema>;

export const createCheckoutRpc = defineRpc('billing.rpc.create-checkout', CheckoutRequestSchema, Type.Object({ url: Type.String(), session_id: Type.String() }));
export const verifyCheckoutRpc = defineRpc('billing.rpc.verify-checkout', Type.Object({ session_id: SessionId }), CheckoutVerificationSchema);
export const claimCheckoutRpc = defineRpc('billing.rpc.claim-checkout', Type.Object({
  session_id: SessionId,
  email: Type.String({ maxLength: 254 }),
  plan_code: Type.Optional(Type.String()),
  account_type: Type.Optional(Type.String()),
  quantity: Type.Optional(Type.Integer()),
  /** The signed-in person's address, as identity knows it (added by the gateway). */
  claimer_email: Type.String(),
}), Type.Object({ subscription_id: Uuid, account_type: Type.String(), org_id: Type.Union([Uuid, Type.Null()]) }));
export const billingOverviewRpc = defineRpc('billing.rpc.overview', Type.Object({ org_id: Type.Optional(Uuid) }), BillingOverviewSchema);
export const manageBillingRpc = defineRpc('billing.rpc.manage', Type.Object({ return_path: Type.String({ pattern: '^/' }), org_id: Type.Optional(Uuid) }), Type.Object({ url: Type.String() }));

/** The local test provider's own pages (no card is charged). */
export const testCheckoutInfoRpc = defineRpc('billing.rpc.test-checkout-info', Type.Object({ session_id: SessionId }), Type.Object({
  session_id: Type.String(), plan_code: Type.String(), plan_name: Type.String(), amount_cents: Type.Integer(), currency: Type.String(), status: Type.String(),
}));
export const testCheckoutPayRpc = defineRpc('billing.rpc.test-checkout-pay', Type.Object({
  session_id: SessionId,
  email: Type.String({ maxLength: 254 }),
  card_number: Type.String({ maxLength: 32 }),
}), Type.Object({ redirect_url: Type.String() }));
export const testPortalCancelRpc = defineRpc('billing.rpc.test-portal-cancel', Type.Object({ subscription_id: Uuid }), Type.Object({
  status: Type.String(), refunded_cents: Type.Integer(), cancel_at_period_end: Type.Boolean(),
}));
export const advanceClockRpc = defineRpc('billing.rpc.advance-clock', Type.Object({ days: Type.Number({ minimum: 0, maximum: 3650 }) }), Type.Object({ now: Type.String() }));

export const stripeWebhookRpc = defineRpc('billing.rpc.stripe-webhook', Type.Object({
  payload: Type.String({ maxLength: 1_000_000 }),
  signature: Type.String({ maxLength: 2000 }),
}), Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean() }));
