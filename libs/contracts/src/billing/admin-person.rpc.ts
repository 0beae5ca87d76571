import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { AdminPersonBillingSchema, RefundLatestAnswerSchema } from '../http/admin-person.http.ts';

const Uuid = Type.String({ format: 'uuid' });

/** The console's page of one person, billing's part: plan and invoices (platform admins only). */
export const adminPersonBillingRpc = defineRpc(
  'billing.rpc.admin-person-billing',
  Type.Object({ user_id: Uuid }),
  AdminPersonBillingSchema,
);
/**
 * The money-back refund of the person's own plan, as a portal cancel within 7 days gives it (platform
 * admins only). The answer names the refund, so the gateway can wait for identity's audit line of it.
 */
export const adminRefundLatestRpc = defineRpc(
  'billing.rpc.admin-refund-latest',
  Type.Object({ user_id: Uuid }),
  Type.Object({ ...RefundLatestAnswerSchema.properties, refund_id: Uuid }),
);
