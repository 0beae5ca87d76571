import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { AdminPersonBillingSchema } from '../http/admin-person.http.ts';

const Uuid = Type.String({ format: 'uuid' });

/** The console's page of one person, billing's part: plan and invoices (platform admins only). */
export const adminPersonBillingRpc = defineRpc(
  'billing.rpc.admin-person-billing',
  Type.Object({ user_id: Uuid }),
  AdminPersonBillingSchema,
);
