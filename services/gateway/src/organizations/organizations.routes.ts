import {
  AppError,
  acceptInvitationRoute,
  acceptInvitationRpc,
  auditLogRoute,
  auditLogRpc,
  changeMemberRoleRoute,
  changeMemberRoleRpc,
  getOrganizationRpc,
  invitationsRoute,
  inviteMemberRoute,
  inviteMemberRpc,
  leaveOrganizationRoute,
  leaveOrganizationRpc,
  listInvitationsRpc,
  listOrgUsersRpc,
  organizationRoute,
  orgUsersRoute,
  previewInvitationRoute,
  previewInvitationRpc,
  removeMemberRoute,
  removeMemberRpc,
  renameOrganizationRoute,
  renameOrganizationRpc,
  revokeInvitationRoute,
  revokeInvitationRpc,
  requireUserId,
  type OrganizationRole,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { organizationIdOf } from '../http/route-access.ts';
import { untilProvisioningFollows } from './provisioning-follows.ts';
import { isUuid } from '../http/ids.ts';

/** A malformed id names nothing of anyone's: the same 404 as an organization (or person) that is not yours. */
function idOr404(raw: string, message: string): string {
  if (!isUuid(raw)) throw new AppError('not_found', message);
  return raw.toLowerCase();
}
const memberId = (raw: string) => idOr404(raw, 'This person is not a member of the organization.');
const invitationId = (raw: string) => idOr404(raw, 'Invitation not found.');

/**
 * The organization itself, its people, invitations and audit log: the route table admits its
 * members, or only its owners and admins (404 for strangers, 403 for members where only managers
 * may), and each route is then one request to identity, which decides again from its own rows. A change of a membership answers once provisioning follows it.
 */
export function registerOrganizationRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  addRoute(app, organizationRoute, async (request, reply) => {
    const { caller } = request;
    const detail = await rpc.request(getOrganizationRpc, { org_id: organizationIdOf(request.params.id) }, caller);
    return reply.header('cache-control', 'no-store').send(detail);
  });

  addRoute(app, renameOrganizationRoute, async (request) => {
    const { caller } = request;
    return rpc.request(
      renameOrganizationRpc,
      { org_id: organizationIdOf(request.params.id), name: request.body.name },
      caller,
    );
  });

  addRoute(app, orgUsersRoute, async (request, reply) => {
    const { caller } = request;
    const users = await rpc.request(listOrgUsersRpc, { org_id: organizationIdOf(request.params.id) }, caller);
    return reply.header('cache-control', 'no-store').send(users);
  });

  addRoute(app, changeMemberRoleRoute, async (request) => {
    const { caller } = request;
    const membership = { orgId: organizationIdOf(request.params.id), userId: memberId(request.params.userId) };
    const changed = await rpc.request(
      changeMemberRoleRpc,
      { org_id: membership.orgId, user_id: membership.userId, role: request.body.role },
      caller,
    );
    await untilProvisioningFollows(rpc, caller, { ...membership, role: changed.user.role });
    return changed;
  });

  addRoute(app, removeMemberRoute, async (request, reply) => {
    const { caller } = request;
    const membership = { orgId: organizationIdOf(request.params.id), userId: memberId(request.params.userId) };
    await rpc.request(removeMemberRpc, { org_id: membership.orgId, user_id: membership.userId }, caller);
    await untilProvisioningFollows(rpc, caller, { ...membership, role: null });
    return reply.status(204).send();
  });

  addRoute(app, leaveOrganizationRoute, async (request, reply) => {
    const { caller } = request;
    const left = organizationIdOf(request.params.id);
    await rpc.request(leaveOrganizationRpc, { org_id: left }, caller);
    await untilProvisioningFollows(rpc, caller, { orgId: left, userId: requireUserId(caller), role: null });
    return reply.status(204).send();
  });

  addRoute(app, invitationsRoute, async (request, reply) => {
    const { caller } = request;
    const invitations = await rpc.request(listInvitationsRpc, { org_id: organizationIdOf(request.params.id) }, caller);
    return reply.header('cache-control', 'no-store').send(invitations);
  });

  addRoute(app, inviteMemberRoute, async (request, reply) => {
    const { caller } = request;
    const invited = await rpc.request(
      inviteMemberRpc,
      { org_id: organizationIdOf(request.params.id), ...request.body },
      caller,
    );
    return reply.status(201).send(invited);
  });

  addRoute(app, revokeInvitationRoute, async (request, reply) => {
    const { caller } = request;
    await rpc.request(
      revokeInvitationRpc,
      { org_id: organizationIdOf(request.params.id), invitation_id: invitationId(request.params.invitationId) },
      caller,
    );
    return reply.status(204).send();
  });

  addRoute(app, auditLogRoute, async (request, reply) => {
    const { caller } = request;
    const { kind, person, before, limit } = request.query;
    if (person !== undefined && !isUuid(person))
      throw new AppError('validation_failed', 'person must be the id of a user.', { field: 'person' });
    const page = await rpc.request(
      auditLogRpc,
      {
        org_id: organizationIdOf(request.params.id),
        ...(kind !== undefined ? { kind } : {}),
        ...(person !== undefined ? { person: person.toLowerCase() } : {}),
        ...(before !== undefined ? { before } : {}),
        ...(limit !== undefined ? { limit } : {}),
      },
      caller,
    );
    return reply.header('cache-control', 'no-store').send(page);
  });

  // The token travels in the body, never in an address that logs or histories keep.
  addRoute(app, previewInvitationRoute, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await rpc.request(previewInvitationRpc, request.body)),
  );

  addRoute(app, acceptInvitationRoute, async (request) => {
    const { caller } = request;
    const accepted = await rpc.request(acceptInvitationRpc, request.body, caller);
    const { id, role } = accepted.organization;
    await untilProvisioningFollows(rpc, caller, {
      orgId: id,
      userId: requireUserId(caller),
      role: role as OrganizationRole,
    });
    return accepted;
  });
}
