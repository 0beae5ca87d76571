import { AppError } from './errors.ts';
import { findPlan } from './plans.ts';

/**
 * Organization rules the services and the web share (spec §5, §6, §9; issue #12).
 */
export const organizationRoles = ['owner', 'admin', 'member'] as const;
export type OrganizationRole = (typeof organizationRoles)[number];

export function isOrganizationRole(value: unknown): value is OrganizationRole {
  return typeof value === 'string' && (organizationRoles as readonly string[]).includes(value);
}

/** Spec §6: owners and admins see the user list, pick any assignee, and manage members. */
export function managesOrganization(role: OrganizationRole | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * What only an organization's owners and admins may do, each completing "Only owners and admins
 * can …": the words of the gateway's route table (an organization route's access) and of identity,
 * which decides again, are these.
 */
export const organizationManagerActions = {
  rename: 'rename the organization',
  seeUsers: "see the organization's users",
  changeRoles: 'change roles',
  removeMembers: 'remove members',
  seeInvitations: 'see invitations',
  invite: 'invite people',
  revokeInvitations: 'revoke invitations',
  readAuditLog: 'read the audit log',
} as const;
export type OrganizationManagerAction = (typeof organizationManagerActions)[keyof typeof organizationManagerActions];

/** A person who is not a member learns nothing, not even that the organization exists. */
export function organizationNotFound(): AppError {
  return new AppError('not_found', 'Organization not found.');
}

/**
 * Whether a person with `role` (null: not a member) may do what needs `need`: null when they may,
 * else the refusal (404 to outsiders, 403 to a member asking what only owners and admins may).
 */
export function organizationRefusal(
  role: OrganizationRole | null,
  need: { organization: 'member' } | { organization: 'manager'; action: OrganizationManagerAction },
): AppError | null {
  if (role === null) return organizationNotFound();
  if (need.organization === 'manager' && !managesOrganization(role))
    return new AppError('forbidden', `Only owners and admins can ${need.action}.`);
  return null;
}

/** Spec §9: each business user may have at most 5 devices in organizations, shown as 'n/5'. */
export const devicesPerAssignee = 5;

/** The text of the quota: 'n/5'. */
export function assigneeQuotaText(count: number): string {
  return `${count}/${devicesPerAssignee}`;
}

/**
 * What provisioning answers when the assignee already has the most organization devices one person
 * may have; the Devices page says the same words by its Add button before anyone asks (issue #26).
 */
export function assigneeQuotaRefusalText(count: number, forSelf: boolean): string {
  const quota = assigneeQuotaText(count);
  return forSelf
    ? `You already have ${quota} organization devices, the most one person may have. Remove one of them to add another.`
    : `This person already has ${quota} organization devices, the most one person may have. Remove one of theirs to add another.`;
}

/** Spec §9: members an organization on this plan may have (invitations still open count too); null: no cap. */
export function userCapOf(planCode: string): number | null {
  return findPlan(planCode)?.userCap ?? null;
}

/** Devices an organization on this plan may have; null: no limit. */
export function deviceCapOf(planCode: string): number | null {
  return findPlan(planCode)?.devices ?? null;
}

/** An invitation link works this long. */
export const invitationDays = 7;

/**
 * Whether a change of members leaves the organization without an owner: the last owner can be
 * neither removed, nor demoted, nor leave.
 */
export function leavesNoOwner(owners: number, change: { removesOwner: boolean }): boolean {
  return change.removesOwner && owners <= 1;
}

/**
 * Whether an owner or admin may change a person's role or remove them: `allowed`, or why not
 * (`not_manager`: only owners and admins change members; `owners_only`: only an owner makes,
 * unmakes or removes an owner; `last_owner`: the last owner stays one). Identity refuses with
 * these; the users page offers only what they allow, so nothing it shows can only fail.
 */
export type MemberChangeVerdict = 'allowed' | 'not_manager' | 'owners_only' | 'last_owner';

export function roleChangeVerdict(change: {
  actorRole: OrganizationRole | null;
  targetRole: OrganizationRole;
  newRole: OrganizationRole;
  owners: number;
}): MemberChangeVerdict {
  const { actorRole, targetRole, newRole, owners } = change;
  if (!managesOrganization(actorRole)) return 'not_manager';
  if (targetRole === newRole) return 'allowed';
  if ((targetRole === 'owner' || newRole === 'owner') && actorRole !== 'owner') return 'owners_only';
  if (targetRole === 'owner' && leavesNoOwner(owners, { removesOwner: true })) return 'last_owner';
  return 'allowed';
}

export function removalVerdict(removal: {
  actorRole: OrganizationRole | null;
  targetRole: OrganizationRole;
  owners: number;
}): MemberChangeVerdict {
  const { actorRole, targetRole, owners } = removal;
  if (!managesOrganization(actorRole)) return 'not_manager';
  if (targetRole === 'owner' && actorRole !== 'owner') return 'owners_only';
  if (targetRole === 'owner' && leavesNoOwner(owners, { removesOwner: true })) return 'last_owner';
  return 'allowed';
}

/** Organization: Active or Suspended (spec §4), from is_active. */
export function organizationStatus(isActive: boolean): 'Active' | 'Suspended' {
  return isActive ? 'Active' : 'Suspended';
}

/** What the audit log records (issue #12), by the service where each happens. */
export const auditKinds = [
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'invitation.revoked',
  'device.added',
  'device.renamed',
  'device.privacy_changed',
  'device.suspended',
  'device.activated',
  'device.removed',
  'device.key_rotated',
  'plan.changed',
  'organization.suspended',
  'organization.reactivated',
] as const;
export type AuditKind = (typeof auditKinds)[number];

/** An organization's name: 1 to 100 characters once trimmed. */
export const organizationNameMaxLength = 100;

/** The name as stored: trimmed, inner runs of white space made one space. */
export function normalizeOrganizationName(raw: unknown): string {
  return typeof raw === 'string' ? raw.trim().replace(/\s+/g, ' ') : '';
}

/** What is wrong with a (normalized) name, in words for the form; null when it is fine. */
export function organizationNameProblem(name: string): string | null {
  if (!name) return 'Enter a name for the organization.';
  if (name.length > organizationNameMaxLength)
    return `The organization name can be at most ${organizationNameMaxLength} characters.`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'The organization name cannot contain control characters.';
  return null;
}
