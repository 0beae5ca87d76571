import { AppError, membershipRpc, requireUserId, type Caller, type OrganizationRole } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';

type Role = OrganizationRole | null;

/**
 * What a person may do with an organization's plan: `read` its plan and invoices, or act on it
 * (the billing portal with its card and cancel, cancel in the test portal, plan changes, resume).
 */
export type OrganizationBillingAction = 'read' | 'manage' | 'cancel' | 'change' | 'resume';

const actionText: Record<Exclude<OrganizationBillingAction, 'read'>, string> = {
  manage: 'manage its billing',
  cancel: 'cancel its plan',
  change: 'change its plan',
  resume: 'resume its plan',
};

/**
 * One rule: owners manage billing. Owners and admins read an organization's plan and invoices (a
 * member gets 403); every action that moves money or ends the plan is its owners' alone (admins
 * and members get 403). Anyone else gets the 404 of an organization that does not exist.
 */
export function organizationBillingRefusal(role: Role, action: OrganizationBillingAction): AppError | null {
  if (role === null) return new AppError('not_found', 'Organization not found.');
  if (action === 'read')
    return role === 'member'
      ? new AppError('forbidden', 'Only owners and admins of the organization see its plan and invoices.')
      : null;
  if (role === 'owner') return null;
  return new AppError(
    'forbidden',
    `Only an owner of the organization can ${actionText[action]}. Ask one of its owners.`,
  );
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

/**
 * The subscription, refused unless the caller may take the action on it: a person's own plan is theirs
 * alone (to anyone else it does not exist); an organization's goes by `organizationBillingRefusal`,
 * with the role identity says the caller has now (whoever paid for it has no lasting right).
 */
export async function refuseUnlessSubscriptionOwner<S extends { user_id: string | null; org_id: string | null }>(
  rpc: RpcClient,
  caller: Caller,
  sub: S | undefined,
  action: Exclude<OrganizationBillingAction, 'read'>,
): Promise<S> {
  const userId = requireUserId(caller);
  const notFound = new AppError('not_found', 'Subscription not found.');
  if (!sub || (!sub.user_id && !sub.org_id)) throw notFound;
  if (!sub.org_id) {
    if (sub.user_id !== userId) throw notFound;
    return sub;
  }
  const refusal = organizationBillingRefusal(await organizationRoleOf(rpc, caller, sub.org_id, userId), action);
  if (refusal?.code === 'not_found') throw notFound;
  if (refusal) throw refusal;
  return sub;
}

/** The caller's role in the organization, as identity says now (billing keeps no members). */
export async function organizationRoleOf(rpc: RpcClient, caller: Caller, orgId: string, userId: string): Promise<Role> {
  const answer = await rpc.request(membershipRpc, { org_id: orgId, user_id: userId }, caller);
  return answer.role;
}
