import {
  AppError,
  entitlingStatuses,
  leavesNoOwner,
  managesOrganization,
  organizationManagerActions,
  organizationNotFound,
  organizationRefusal,
  removalVerdict,
  roleChangeVerdict,
  type OrganizationManagerAction,
  planDisplayName,
  userCapOf,
  type OrganizationRole,
} from '@qw/contracts';
import type { RateLimit } from '@qw/platform/limits';

export { organizationNotFound } from '@qw/contracts';

/**
 * Who may do what in an organization, the user cap and the state of an invitation: functions of
 * data that answer the refusal (or null), so the service throws and the tests look at every case.
 */
type Role = OrganizationRole | null;

export function memberRefusal(role: Role): AppError | null {
  return organizationRefusal(role, { organization: 'member' });
}

/** Owners and admins only, in the route table's words for `action` (libs/contracts organizations.ts). */
export function managerRefusal(role: Role, action: OrganizationManagerAction): AppError | null {
  return organizationRefusal(role, { organization: 'manager', action });
}

/**
 * An invitation is only as good as its sender's right to send it: accepting is refused once the
 * sender was demoted, removed or left (or their account is gone), even where the invitation was not
 * revoked then.
 */
export function inviterRefusal(inviterRole: Role): AppError | null {
  // Who may send invitations: owners and admins (the same people `managerRefusal` lets invite).
  if (managesOrganization(inviterRole)) return null;
  return new AppError(
    'link_expired',
    'This invitation is no longer valid: the person who sent it can no longer invite people. Ask an owner or admin for a new one.',
  );
}

export function roleChangeRefusal(change: {
  actorRole: Role;
  targetRole: OrganizationRole;
  newRole: OrganizationRole;
  owners: number;
}): AppError | null {
  switch (roleChangeVerdict(change)) {
    case 'allowed':
      return null;
    case 'not_manager':
      return managerRefusal(change.actorRole, organizationManagerActions.changeRoles);
    case 'owners_only':
      return new AppError('forbidden', 'Only an owner can make or unmake owners.');
    case 'last_owner':
      return new AppError('conflict', 'The last owner cannot be demoted. Make someone else an owner first.');
  }
}

export function removalRefusal(removal: {
  actorRole: Role;
  targetRole: OrganizationRole;
  owners: number;
}): AppError | null {
  switch (removalVerdict(removal)) {
    case 'allowed':
      return null;
    case 'not_manager':
      return managerRefusal(removal.actorRole, organizationManagerActions.removeMembers);
    case 'owners_only':
      return new AppError('forbidden', 'Only an owner can remove an owner.');
    case 'last_owner':
      return new AppError('conflict', 'The last owner cannot be removed. Make someone else an owner first.');
  }
}

export function leaveRefusal(leaving: { role: Role; owners: number }): AppError | null {
  if (leaving.role === null) return organizationNotFound();
  if (leavesNoOwner(leaving.owners, { removesOwner: leaving.role === 'owner' }))
    return new AppError('conflict', 'You are the last owner. Make someone else an owner before you leave.');
  return null;
}

/**
 * The plan's user cap counts members and open invitations. Inviting adds one to that count;
 * accepting turns one open invitation (already counted) into a member, so it fits exactly at
 * the cap and is refused only when the organization is already past it (a smaller plan since).
 */
export function capRefusal(
  plan: string,
  counted: { members: number; openInvitations: number },
  when: 'invite' | 'accept',
): AppError | null {
  const cap = userCapOf(plan);
  if (cap === null) return null;
  const total = counted.members + counted.openInvitations;
  if (when === 'invite' && total + 1 > cap)
    return new AppError(
      'quota_exceeded',
      `${planDisplayName(plan)} allows ${cap} users, counting open invitations. Revoke an invitation, remove a member or choose a bigger plan.`,
      { user_cap: cap },
    );
  if (when === 'accept' && total > cap)
    return new AppError(
      'quota_exceeded',
      `This organization is full: ${planDisplayName(plan)} allows ${cap} users. Ask an owner or admin to make room.`,
      { user_cap: cap },
    );
  return null;
}

/** Invitations an organization may send an hour (each is a mail to an address someone typed). */
export function invitationLimit(plan: string): RateLimit {
  return { max: Math.max(20, 2 * (userCapOf(plan) ?? 0)), windowSeconds: 3600 };
}

export type InvitationState = 'open' | 'accepted' | 'revoked' | 'expired';

export function invitationState(
  invitation: { accepted_at: Date | string | null; revoked_at: Date | string | null; expires_at: Date | string },
  now: Date,
): InvitationState {
  if (invitation.accepted_at) return 'accepted';
  if (invitation.revoked_at) return 'revoked';
  if (new Date(invitation.expires_at).getTime() <= now.getTime()) return 'expired';
  return 'open';
}

/** Why a link no longer works (410), or null while it is open. */
export function invitationRefusal(state: InvitationState): AppError | null {
  switch (state) {
    case 'open':
      return null;
    case 'accepted':
      return new AppError('link_expired', 'This invitation has already been used.');
    case 'revoked':
      return new AppError(
        'link_expired',
        'This invitation has been revoked. Ask the person who invited you for a new one.',
      );
    case 'expired':
      return new AppError('link_expired', 'This invitation has expired. Ask the person who invited you for a new one.');
  }
}

/** The link proves the mailbox; the session must be the account of that same address. */
export function acceptRefusal(addresses: { invitedEmail: string; accountEmail: string }): AppError | null {
  if (addresses.invitedEmail === addresses.accountEmail) return null;
  return new AppError(
    'email_mismatch',
    'This invitation was sent to another email address. Sign in with that address to accept it.',
  );
}

/**
 * The position after the last entry of a page (newest first), opaque to clients and short enough
 * for a query string: its time in milliseconds and its id, 24 bytes in base64url (32 characters).
 */
export function encodeAuditCursor(last: { at: Date; id: string }): string {
  const bytes = Buffer.alloc(24);
  bytes.writeBigInt64BE(BigInt(last.at.getTime()), 0);
  Buffer.from(last.id.replace(/-/g, ''), 'hex').copy(bytes, 8);
  return bytes.toString('base64url');
}

export function decodeAuditCursor(cursor: string): { at: Date; id: string } | null {
  if (!/^[\w-]{32}$/.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length !== 24) return null;
  const at = new Date(Number(bytes.readBigInt64BE(0)));
  if (Number.isNaN(at.getTime())) return null;
  const hex = bytes.subarray(8).toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { at, id };
}

/**
 * An organization's standing from billing's subscriptions of it: Active while one entitles it (the
 * newest of those names the plan); Suspended when none does (the newest names the plan it had).
 * Knowing none yet changes nothing.
 */
export function organizationStanding(
  subscriptions: ReadonlyArray<{ plan_code: string; status: string; updated_at: Date | string }>,
  current: { is_active: boolean; plan: string },
): { is_active: boolean; plan: string } {
  if (subscriptions.length === 0) return current;
  const newestFirst = [...subscriptions].sort(
    (a, b) => new Date(b.updated_at).getTime() - new Date(a.updated_at).getTime(),
  );
  const entitling = newestFirst.find((sub) => (entitlingStatuses as readonly string[]).includes(sub.status));
  if (entitling) return { is_active: true, plan: entitling.plan_code };
  return { is_active: false, plan: newestFirst[0]!.plan_code };
}

/** How an organization's people see an operator (a platform admin) acting on their organization. */
export const supportActor = { user_id: null, name: 'Quietwire support' } as const;

/**
 * Who the organization's log shows as an entry's actor. An operator's change shows as Quietwire
 * support: the organization suspended by an operator, a device switched off by one (reason
 * `admin`), or any change by someone who never was a member of the organization (only an operator
 * acts on an organization from outside it). The operator's identity stays in the operators' own
 * audit. Everyone else is shown by the name the entry kept; a null actor is the system.
 */
export function shownActor(
  entry: { actor_id: string | null; actor_name: string | null; details: Record<string, unknown> | null },
  everMember: (userId: string) => boolean,
): { user_id: string | null; name: string } | null {
  if (entry.details?.by === 'operator') return { ...supportActor };
  if (!entry.actor_id) return null;
  if (entry.details?.reason === 'admin' || !everMember(entry.actor_id)) return { ...supportActor };
  return { user_id: entry.actor_id, name: entry.actor_name ?? '' };
}

/**
 * A device's name at an entry's time, for entries whose event carried none (suspended, removed…):
 * the newest name given at or before it, else (its naming event not handled yet) the first after.
 * Events of different subjects arrive in any order, so this is decided when the log is read.
 */
export function deviceNameAt(
  namings: ReadonlyArray<{ name: string; at: Date | string }>,
  at: Date | string,
): string | null {
  const when = new Date(at).getTime();
  let before: { name: string; time: number } | null = null;
  let after: { name: string; time: number } | null = null;
  for (const naming of namings) {
    const time = new Date(naming.at).getTime();
    if (time <= when) {
      if (!before || time >= before.time) before = { name: naming.name, time };
    } else if (!after || time < after.time) after = { name: naming.name, time };
  }
  return before?.name ?? after?.name ?? null;
}
