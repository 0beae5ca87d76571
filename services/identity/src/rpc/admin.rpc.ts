import {
  addAdminEmailRpc,
  adminAuditRpc,
  adminEmailsRpc,
  adminOrganizationsRpc,
  adminReactivateOrganizationRpc,
  adminSuspendOrganizationRpc,
  adminUsersRpc,
  removeAdminEmailRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { AdminConsoleService } from '../admin/admin-console.service.ts';

/** The operator console's accounts: platform admins only, decided again here from the database. */
export function adminEndpoints(admin: AdminConsoleService): RpcEndpoint[] {
  return [
    endpoint(adminUsersRpc, (data, caller) => admin.users(caller, data)),
    endpoint(adminOrganizationsRpc, (data, caller) => admin.organizations(caller, data)),
    endpoint(adminSuspendOrganizationRpc, (data, caller) =>
      admin.setOperatorSuspension(caller, data.org_id, true, data.reason),
    ),
    endpoint(adminReactivateOrganizationRpc, (data, caller) => admin.setOperatorSuspension(caller, data.org_id, false)),
    endpoint(adminEmailsRpc, (_data, caller) => admin.adminEmails(caller)),
    endpoint(addAdminEmailRpc, (data, caller) => admin.addAdminEmail(caller, data.email)),
    endpoint(removeAdminEmailRpc, async (data, caller) => {
      await admin.removeAdminEmail(caller, data.email);
      return {};
    }),
    endpoint(adminAuditRpc, (data, caller) => admin.auditLog(caller, data)),
  ];
}
