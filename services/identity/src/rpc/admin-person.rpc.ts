import {
  adminEndSessionsRpc,
  adminPersonRpc,
  adminPersonSuspensionRpc,
  adminPersonTestMarkRpc,
  adminResendVerificationRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { AdminPersonService } from '../admin/admin-person.service.ts';

/** The operator console's page of one person, and its actions: platform admins only, decided again here. */
export function adminPersonEndpoints(people: AdminPersonService): RpcEndpoint[] {
  return [
    endpoint(adminPersonRpc, (data, caller) => people.person(caller, data.user_id)),
    endpoint(adminEndSessionsRpc, (data, caller) => people.endSessions(caller, data.user_id)),
    endpoint(adminResendVerificationRpc, (data, caller) => people.resendVerification(caller, data.user_id)),
    endpoint(adminPersonSuspensionRpc, (data, caller) =>
      people.setSuspension(caller, data.user_id, data.suspended, data.reason),
    ),
    endpoint(adminPersonTestMarkRpc, (data, caller) => people.setTestAccount(caller, data.user_id, data.is_test)),
  ];
}
