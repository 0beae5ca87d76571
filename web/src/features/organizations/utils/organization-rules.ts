import {
  auditKinds,
  organizationRoles,
  removalVerdict,
  roleChangeVerdict,
  type AuditKind,
  type OrganizationRole,
} from '@qw/contracts';

/**
 * The business area's organization rules as functions of data (tested in
 * web/test/organization-rules.test.ts): which organization is chosen, what an invitation page asks
 * of the person holding the link, and how the audit log names what happened.
 */

/** Spec §2: the selector remembers the last choice, per person (two people may share a browser). */
export function orgSelectionKey(userId: string | null | undefined): string | null {
  return userId ? `qw.business.org.${userId}` : null;
}

/** The remembered organization when the person still belongs to it, else the first one; null: none. */
export function chooseOrganization<T extends { id: string }>(
  organizations: readonly T[],
  rememberedId: string | null | undefined,
): T | null {
  return organizations.find((org) => org.id === rememberedId) ?? organizations[0] ?? null;
}

/**
 * What /invite shows: `join` for the invited address signed in; `wrong-account` for someone else
 * signed in (sign out first); otherwise `sign-in` when the address has an account, `sign-up` when
 * it has none (the account is created with that address, then the page comes back to join).
 */
export type InvitationStep = 'join' | 'wrong-account' | 'sign-in' | 'sign-up';

export function invitationStep(input: {
  signedInEmail: string | null | undefined;
  invitedEmail: string;
  accountExists: boolean;
}): InvitationStep {
  const signedIn = input.signedInEmail?.trim().toLowerCase();
  if (signedIn) return signedIn === input.invitedEmail.trim().toLowerCase() ? 'join' : 'wrong-account';
  return input.accountExists ? 'sign-in' : 'sign-up';
}

/** The audit log's words for each kind of entry (issue #12). */
export const auditKindLabels: Readonly<Record<AuditKind, string>> = {
  'member.invited': 'Member invited',
  'member.joined': 'Member joined',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'member.left': 'Member left',
  'invitation.revoked': 'Invitation revoked',
  'device.added': 'Device added',
  'device.renamed': 'Device renamed',
  'device.privacy_changed': 'Device privacy changed',
  'device.suspended': 'Device suspended',
  'device.activated': 'Device activated',
  'device.removed': 'Device removed',
  'device.key_rotated': 'Device key rotated',
  'plan.changed': 'Plan changed',
  'organization.suspended': 'Organization suspended',
  'organization.reactivated': 'Organization reactivated',
};

/** A kind this page does not know yet (a newer server) is shown as it is written. */
export function auditKindLabel(kind: string): string {
  return (auditKindLabels as Record<string, string>)[kind] ?? kind;
}

/** The kind filter's choices: every kind, in the contracts' order. */
export const auditKindOptions: readonly { value: AuditKind; label: string }[] = auditKinds.map((kind) => ({
  value: kind,
  label: auditKindLabels[kind],
}));

/** Details worth a reader's eye (role, name, plan …) as 'key: value' pairs; nested values are left out. */
export function auditDetailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${String(value)}`)
    .join(', ');
}

/**
 * Pages of the audit log go back in time with the server's `next` cursor; the page keeps the
 * cursors it came through so Newer goes back one step. `undefined` is the first page.
 */
export type AuditPaging = { cursors: readonly (string | undefined)[] };

export const firstAuditPage: AuditPaging = { cursors: [undefined] };

export function currentCursor(paging: AuditPaging): string | undefined {
  return paging.cursors[paging.cursors.length - 1];
}

export function olderPage(paging: AuditPaging, next: string | null): AuditPaging {
  return next ? { cursors: [...paging.cursors, next] } : paging;
}

export function newerPage(paging: AuditPaging): AuditPaging {
  return paging.cursors.length > 1 ? { cursors: paging.cursors.slice(0, -1) } : paging;
}

/** The roles an owner or admin may invite with (an owner is made by changing a member's role). */
export const invitableRoles = ['member', 'admin'] as const;

export const roleLabels: Readonly<Record<string, string>> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export function roleLabel(role: string): string {
  return roleLabels[role] ?? role;
}

/**
 * What the users list offers for one person (issue #26: nothing that can only fail): the roles the
 * viewer may give them (their own among them; one role means no choice, so no control), whether
 * the viewer may remove them (themselves: they leave instead), and a note when the only owner is
 * why nothing is offered. The same verdicts identity refuses with (libs/contracts organizations.ts).
 */
export function memberControls(input: {
  viewerRole: OrganizationRole | null;
  target: { role: OrganizationRole; self: boolean };
  owners: number;
}): { roles: OrganizationRole[]; remove: boolean; note: string | null } {
  const { viewerRole, target, owners } = input;
  const roles = organizationRoles.filter(
    (newRole) => roleChangeVerdict({ actorRole: viewerRole, targetRole: target.role, newRole, owners }) === 'allowed',
  );
  const remove =
    !target.self && removalVerdict({ actorRole: viewerRole, targetRole: target.role, owners }) === 'allowed';
  const lastOwner = target.role === 'owner' && owners <= 1 && viewerRole === 'owner';
  return { roles, remove, note: lastOwner ? 'The only owner: make someone else an owner first.' : null };
}

/**
 * The seats of the plan as the team lead reads them: members and still-open invitations (both count
 * against the cap, spec §9) of the cap, e.g. "4 of 10 seats (1 invited)"; just the members without a cap.
 */
export function seatsText(org: { member_count: number; user_cap: number | null }, openInvitations: number): string {
  const invited = openInvitations > 0 ? ` (${openInvitations} invited)` : '';
  if (org.user_cap === null) return `${org.member_count} members${invited}`;
  return `${org.member_count + openInvitations} of ${org.user_cap} seats${invited}`;
}

/** The organization's devices against its plan's limit: "7 of 10 devices", or the count without one. */
export function teamDevicesText(quota: { devices: number; device_cap: number | null }): string {
  return quota.device_cap === null ? `${quota.devices} devices` : `${quota.devices} of ${quota.device_cap} devices`;
}

/** The people who have as many organization devices as one person may (spec §9: 5), by name. */
export function membersAtDeviceLimit(
  quota: { per_assignee: number; by_assignee: Readonly<Record<string, number>> },
  users: readonly { user_id: string; full_name?: string | null; email: string }[],
): string[] {
  return users
    .filter((u) => (quota.by_assignee[u.user_id] ?? 0) >= quota.per_assignee)
    .map((u) => u.full_name?.trim() || u.email);
}
