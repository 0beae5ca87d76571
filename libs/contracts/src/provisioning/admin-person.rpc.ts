import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { AdminPersonDevicesSchema } from '../http/admin-person.http.ts';

const Uuid = Type.String({ format: 'uuid' });

/** The console's page of one person, provisioning's part: their devices (platform admins only). */
export const adminPersonDevicesRpc = defineRpc(
  'provisioning.rpc.admin-person-devices',
  Type.Object({ user_id: Uuid }),
  AdminPersonDevicesSchema,
);
