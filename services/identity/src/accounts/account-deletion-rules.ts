import type { OrgRole } from '../database.ts';

/** An organization the person belongs to, as deleting their account must weigh it. */
export type MembershipAtDeletion = {
  name: string;
  role: OrgRole;
  owners: number;
  members: number;
  /** Whether a plan keeps it active (an organization whose plan ended is not). */
  isActive: boolean;
};

/**
 * Why the account cannot be deleted now, or null when it can. The last owner of an organization
 * that others belong to, or that a plan still pays for, would leave it with nobody able to manage
 * or cancel it: they make someone else an owner, or cancel the plan, first. An organization with
 * no one else and no plan goes with its last owner.
 */
export function deletionRefusal(memberships: readonly MembershipAtDeletion[]): string | null {
  const held = memberships.find((m) => m.role === 'owner' && m.owners === 1 && (m.members > 1 || m.isActive));
  if (!held) return null;
  return held.members > 1
    ? `You are the only owner of ${held.name}. Make another member an owner, or cancel its plan and remove its members, before deleting your account.`
    : `You are the only owner of ${held.name}, and its plan is still active. Cancel its plan before deleting your account.`;
}

/** Organizations that go with the account: those where the person is the only member. */
export function organizationsToDelete(memberships: readonly (MembershipAtDeletion & { id: string })[]): string[] {
  return memberships.filter((m) => m.role === 'owner' && m.members === 1 && !m.isActive).map((m) => m.id);
}

/** The name audit entries show in place of a deleted person's. */
export const formerUserName = 'A former user';
