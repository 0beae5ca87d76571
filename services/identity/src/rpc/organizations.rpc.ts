import {
  acceptInvitationRpc,
  auditLogRpc,
  changeMemberRoleRpc,
  getOrganizationRpc,
  inviteMemberRpc,
  leaveOrganizationRpc,
  listInvitationsRpc,
  listOrgUsersRpc,
  membershipRpc,
  previewInvitationRpc,
  removeMemberRpc,
  renameOrganizationRpc,
  revokeInvitationRpc,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { readAuditLog } from '../audit/audit.service.ts';
import type { InvitationsService } from '../organizations/invitations.service.ts';
import type { MembersService } from '../organizations/members.service.ts';
import { membership, organizationDetail, renameOrganization } from '../organizations/organizations.service.ts';

/** Organizations, their people, invitations and audit log; each decides who may from the verified caller. */
export function organizationEndpoints(deps: {
  db: Kysely<IdentityDatabase>;
  members: MembersService;
  invitations: InvitationsService;
}): RpcEndpoint[] {
  const { db, members, invitations } = deps;
  return [
    endpoint(getOrganizationRpc, (data, caller) => organizationDetail(db, caller, data.org_id)),
    endpoint(renameOrganizationRpc, (data, caller) => renameOrganization(db, caller, data)),
    endpoint(listOrgUsersRpc, (data, caller) => members.listUsers(caller, data.org_id)),
    endpoint(changeMemberRoleRpc, (data, caller) => members.changeRole(caller, data)),
    endpoint(removeMemberRpc, async (data, caller) => {
      await members.remove(caller, data);
      return {};
    }),
    endpoint(leaveOrganizationRpc, async (data, caller) => {
      await members.leave(caller, data.org_id);
      return {};
    }),
    endpoint(inviteMemberRpc, (data, caller) => invitations.invite(caller, data)),
    endpoint(listInvitationsRpc, (data, caller) => invitations.list(caller, data.org_id)),
    endpoint(revokeInvitationRpc, async (data, caller) => {
      await invitations.revoke(caller, data);
      return {};
    }),
    endpoint(previewInvitationRpc, (data) => invitations.preview(data.token)),
    endpoint(acceptInvitationRpc, (data, caller) => invitations.accept(caller, data.token)),
    endpoint(auditLogRpc, (data, caller) => readAuditLog(db, caller, data)),
    // Service to service: NATS lets billing and provisioning ask it, never the gateway.
    endpoint(membershipRpc, (data) => membership(db, data)),
  ];
}
