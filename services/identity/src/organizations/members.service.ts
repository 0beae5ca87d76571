import type { Kysely } from 'kysely';
import {
  AppError,
  organizationManagerActions,
  managesOrganization,
  memberLeft,
  memberRoleChanged,
  requireUserId,
  type Caller,
  type OrgUser,
  type OrganizationManagerAction,
  type OrganizationRole,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { IdentityDatabase } from '../database.ts';
import { addAuditEntry } from '../audit/audit.repository.ts';
import { revokeInvitationsOfFormerManager } from './invitations.service.ts';
import {
  leaveRefusal,
  managerRefusal,
  organizationNotFound,
  removalRefusal,
  roleChangeRefusal,
} from './organization-rules.ts';
import * as repo from './organizations.repository.ts';

type Db = Kysely<IdentityDatabase>;

const notAMember = () => new AppError('not_found', 'This person is not a member of the organization.');

/** A user row as the list shows it; the name is the audit log's snapshot too. */
function displayName(user: { full_name: string | null; email: string }): string {
  return user.full_name?.trim() || user.email;
}

/**
 * The people of an organization: the list (owners and admins), role changes, removal and leaving.
 * Every change locks the organization's row first and leaves its event and audit entry in the
 * same transaction; whoever loses the right to invite loses their open invitations with it.
 */
export class MembersService {
  constructor(private readonly db: Db) {}

  /** Spec §7 list_org_users: owners and admins; a member gets 403, anyone else the 404 of an unknown organization. */
  async listUsers(caller: Caller, orgId: string): Promise<{ users: OrgUser[] }> {
    const userId = requireUserId(caller);
    const refusal = managerRefusal(await repo.roleOf(this.db, orgId, userId), organizationManagerActions.seeUsers);
    if (refusal) throw refusal;
    return { users: await repo.listUsers(this.db, orgId) };
  }

  async changeRole(
    caller: Caller,
    input: { org_id: string; user_id: string; role: OrganizationRole },
  ): Promise<{ user: OrgUser }> {
    const actorId = requireUserId(caller);
    return this.db.transaction().execute(async (tx) => {
      const { actorRole } = await this.actor(tx, input.org_id, actorId, organizationManagerActions.changeRoles);
      const target = await repo.findUser(tx, input.org_id, input.user_id);
      if (!target) throw notAMember();
      const { owners } = await repo.countMembers(tx, input.org_id);
      const refusal = roleChangeRefusal({ actorRole, targetRole: target.role, newRole: input.role, owners });
      if (refusal) throw refusal;
      if (target.role === input.role) return { user: target };
      await repo.setMemberRole(tx, input.org_id, input.user_id, input.role);
      const at = new Date();
      const actor = { id: actorId, name: (await repo.personName(tx, actorId)) ?? '' };
      if (managesOrganization(target.role) && !managesOrganization(input.role))
        await revokeInvitationsOfFormerManager(tx, { orgId: input.org_id, inviterId: input.user_id, actor, at });
      await addToOutbox(tx, memberRoleChanged, {
        orgId: input.org_id,
        userId: input.user_id,
        role: input.role,
        previousRole: target.role,
        actorId,
      });
      await addAuditEntry(tx, {
        orgId: input.org_id,
        kind: 'member.role_changed',
        at,
        actor,
        target: { kind: 'user', id: input.user_id, name: displayName(target) },
        personId: input.user_id,
        details: { from: target.role, to: input.role },
      });
      return { user: { ...target, role: input.role } };
    });
  }

  /** Owners and admins remove members (only an owner removes an owner; never the last). Removing yourself is leaving. */
  async remove(caller: Caller, input: { org_id: string; user_id: string }): Promise<void> {
    const actorId = requireUserId(caller);
    if (input.user_id === actorId) return this.leave(caller, input.org_id);
    await this.db.transaction().execute(async (tx) => {
      const { actorRole } = await this.actor(tx, input.org_id, actorId, organizationManagerActions.removeMembers);
      const target = await repo.findUser(tx, input.org_id, input.user_id);
      if (!target) throw notAMember();
      const { owners } = await repo.countMembers(tx, input.org_id);
      const refusal = removalRefusal({ actorRole, targetRole: target.role, owners });
      if (refusal) throw refusal;
      await repo.deleteMember(tx, input.org_id, input.user_id);
      const at = new Date();
      const actor = { id: actorId, name: (await repo.personName(tx, actorId)) ?? '' };
      await revokeInvitationsOfFormerManager(tx, { orgId: input.org_id, inviterId: input.user_id, actor, at });
      await addToOutbox(tx, memberLeft, {
        orgId: input.org_id,
        userId: input.user_id,
        actorId,
        reason: 'removed',
      });
      await addAuditEntry(tx, {
        orgId: input.org_id,
        kind: 'member.removed',
        at,
        actor,
        target: { kind: 'user', id: input.user_id, name: displayName(target) },
        personId: input.user_id,
        details: { role: target.role },
      });
    });
  }

  /** Anyone but the last owner may leave; their organization devices go with them (provisioning). */
  async leave(caller: Caller, orgId: string): Promise<void> {
    const userId = requireUserId(caller);
    await this.db.transaction().execute(async (tx) => {
      const org = await repo.lockOrganization(tx, orgId);
      const me = org ? await repo.findUser(tx, orgId, userId) : undefined;
      const { owners } = await repo.countMembers(tx, orgId);
      const refusal = leaveRefusal({ role: me?.role ?? null, owners });
      if (refusal || !me) throw refusal ?? organizationNotFound();
      await repo.deleteMember(tx, orgId, userId);
      await addToOutbox(tx, memberLeft, { orgId, userId, actorId: userId, reason: 'left' });
      const name = displayName(me);
      const at = new Date();
      await revokeInvitationsOfFormerManager(tx, { orgId, inviterId: userId, actor: { id: userId, name }, at });
      await addAuditEntry(tx, {
        orgId,
        kind: 'member.left',
        at,
        actor: { id: userId, name },
        target: { kind: 'user', id: userId, name },
        personId: userId,
        details: { role: me.role },
      });
    });
  }

  /** Locks the organization and answers the actor's role, refusing strangers (404) and members (403). */
  private async actor(tx: Db, orgId: string, actorId: string, what: OrganizationManagerAction) {
    const org = await repo.lockOrganization(tx, orgId);
    if (!org) throw organizationNotFound();
    const actorRole = await repo.roleOf(tx, orgId, actorId);
    const refusal = managerRefusal(actorRole, what);
    if (refusal || !actorRole) throw refusal ?? organizationNotFound();
    return { org, actorRole };
  }
}
