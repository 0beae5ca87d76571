import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';
import {
  AdminPersonIdentitySchema,
  EndSessionsAnswerSchema,
  PersonSuspensionAnswerSchema,
  ResendVerificationAnswerSchema,
  TestAccountAnswerSchema,
  accountSuspensionReasonMaxLength,
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
/** An operator suspends a person's account with a reason (`suspended: true`) or lifts it; audited. */
export const adminPersonSuspensionRpc = defineRpc(
  'identity.rpc.admin-person-suspension',
  Type.Object({
    user_id: Uuid,
    suspended: Type.Boolean(),
    reason: Type.Optional(Type.String({ maxLength: accountSuspensionReasonMaxLength })),
  }),
  PersonSuspensionAnswerSchema,
);
/** An operator marks the person's account as a test account or unmarks it (issue #26); audited. */
export const adminPersonTestMarkRpc = defineRpc(
  'identity.rpc.admin-person-test-mark',
  Type.Object({ user_id: Uuid, is_test: Type.Boolean() }),
  TestAccountAnswerSchema,
);
