import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });
const When = Type.String({ description: 'ISO 8601' });
const MaybeWhen = Type.Union([When, Type.Null()]);

/** What billing holds about the caller, for their export: their plans and payments (no card number). */
export const BillingAccountDataSchema = Type.Object({
  subscriptions: Type.Array(
    Type.Object({
      id: Uuid,
      plan: Type.String(),
      status: Type.String(),
      organization_id: Type.Union([Uuid, Type.Null()]),
      started_at: MaybeWhen,
      current_period_end: MaybeWhen,
      canceled_at: MaybeWhen,
    }),
  ),
  invoices: Type.Array(
    Type.Object({
      id: Uuid,
      number: Type.Union([Type.String(), Type.Null()]),
      plan: Type.Union([Type.String(), Type.Null()]),
      amount_cents: Type.Integer(),
      currency: Type.String(),
      status: Type.String(),
      period_start: MaybeWhen,
      period_end: MaybeWhen,
      paid_at: MaybeWhen,
      card: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type BillingAccountData = Static<typeof BillingAccountDataSchema>;

export const exportBillingDataRpc = defineRpc('billing.rpc.export-account', Type.Object({}), BillingAccountDataSchema);
