import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import { AdminPersonIdentitySchema } from '../http/admin-person.http.ts';

const Uuid = Type.String({ format: 'uuid' });

/** The console's page of one person, identity's part (platform admins only); `not_found` for nobody. */
export const adminPersonRpc = defineRpc(
  'identity.rpc.admin-person',
  Type.Object({ user_id: Uuid }),
  AdminPersonIdentitySchema,
);
