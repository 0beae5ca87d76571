import { AppError, membershipRpc, type Caller, type OrganizationRole } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';

type Role = OrganizationRole | null;

/** Owners and admins see an organization's plan and invoices; a member gets 403; anyone else a 404. */
export function organizationBillingRefusal(role: Role): AppError | null {
  if (role === null) return new AppError('not_found', 'Organization not found.');
  if (role === 'member')
    return new AppError('forbidden', 'Only owners and admins of the organization see its plan and invoices.');
  return null;
}

/**
 * A purchase claimed for an organization that exists (its plan ended and is paid again): by an
 * owner, a Business plan, while no other plan of the organization runs on (one set to end at the
 * period's end does not count).
 */
export function organizationPlanRefusal(claim: {
  role: Role;
  plan: { accountType: string } | undefined;
  runningPlans: number;
}): AppError | null {
  if (claim.role === null) return new AppError('not_found', 'Organization not found.');
  if (claim.role !== 'owner')
    return new AppError('forbidden', 'Only an owner of the organization can add a plan to it.');
  if (claim.plan?.accountType !== 'business')
    return new AppError('validation_failed', 'Only a Business plan can be added to an organization.', {
      field: 'org_id',
    });
  if (claim.runningPlans > 0)
    return new AppError(
      'conflict',
      'This organization already has a plan that runs on. Change it from Manage Billing instead.',
    );
  return null;
}

/** The caller's role in the organization, as identity says now (billing keeps no members). */
export async function organizationRoleOf(rpc: RpcClient, caller: Caller, orgId: string, userId: string): Promise<Role> {
  const answer = await rpc.request(membershipRpc, { org_id: orgId, user_id: userId }, caller);
  return answer.role;
}
