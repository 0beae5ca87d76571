import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import {
  AdminPersonIdentitySchema,
  EndSessionsAnswerSchema,
  ResendVerificationAnswerSchema,
} from '../http/admin-person.http.ts';

const Uuid = Type.String({ format: 'uuid' });

/** The console's page of one person, identity's part (platform admins only); `not_found` for nobody. */
export const adminPersonRpc = defineRpc(
  'identity.rpc.admin-person',
  Type.Object({ user_id: Uuid }),
  AdminPersonIdentitySchema,
);
export const adminEndSessionsRpc = defineRpc(
  'identity.rpc.admin-person-end-sessions',
  Type.Object({ user_id: Uuid }),
  EndSessionsAnswerSchema,
);
export const adminResendVerificationRpc = defineRpc(
  'identity.rpc.admin-person-resend-verification',
  Type.Object({ user_id: Uuid }),
  ResendVerificationAnswerSchema,
);
