import { AppError, type OrganizationRole } from '@qw/contracts';

/**
 * Read-your-writes (issue #20): provisioning decides on its copies of identity's organizations and
 * billing's subscriptions, kept by events. When a decision on the copy refuses, the copy may only be
 * behind the owner (the event of a change answered a moment ago is on its way), so provisioning
 * asks the owners, corrects the copy with their answers and decides again. These rules say what an
 * answer corrects, as data.
 */

/**
 * The event id a row written from an owner's answer carries: older than every event (ids are UUID
 * v7, time first), so the next event about it applies over the answer as usual.
 */
export const answeredBeforeAnyEvent = '00000000-0000-0000-0000-000000000000';

/** Refusals that a copy behind its owner can cause (a rate limit or a per-person count cannot). */
export function mayBeBehindOwner(error: unknown): boolean {
  if (!(error instanceof AppError)) return false;
  if (error.code === 'quota_exceeded') return (error.details as { limit?: string } | undefined)?.limit === 'device_cap';
  return ['not_found', 'forbidden', 'validation_failed', 'no_entitlement', 'suspended_by_operator'].includes(
    error.code,
  );
}

type ProjectedMember = { role: OrganizationRole; is_member: boolean } | undefined;

/** The membership identity's answer says, where the copy says otherwise; null: the copy is right. */
export function memberCorrection(
  projected: ProjectedMember,
  answer: { role: OrganizationRole | null },
): { role: OrganizationRole; is_member: boolean } | null {
  if (answer.role === null) return projected?.is_member ? { role: projected.role, is_member: false } : null;
  if (projected?.is_member && projected.role === answer.role) return null;
  return { role: answer.role, is_member: true };
}

type ProjectedOrganization = { is_active: boolean; plan: string | null; suspended_by_operator: boolean } | undefined;

/**
 * The organization's standing identity's answer says, where the copy says otherwise. An answer
 * without a plan is about an organization identity does not know: it corrects nothing. Identity's
 * answer does not say why it is Suspended, so a copy that knows keeps its reason.
 */
export function organizationCorrection(
  projected: ProjectedOrganization,
  answer: { org_active: boolean; plan: string | null },
): { is_active: boolean; plan: string; suspended_by_operator: boolean } | null {
  if (answer.plan === null) return null;
  if (projected && projected.is_active === answer.org_active && projected.plan === answer.plan) return null;
  return {
    is_active: answer.org_active,
    plan: answer.plan,
    suspended_by_operator: !answer.org_active && (projected?.suspended_by_operator ?? false),
  };
}

type PlanAnswer = { subscription_id: string; plan_code: string; status: string };

/** The subscription billing says entitles the owner, where the copy of it says otherwise. */
export function entitlementCorrection(
  projected: { plan_code: string; status: string } | undefined,
  answer: PlanAnswer | null,
): PlanAnswer | null {
  if (!answer) return null;
  if (projected && projected.plan_code === answer.plan_code && projected.status === answer.status) return null;
  return answer;
}
