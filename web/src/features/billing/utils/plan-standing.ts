import { entitlingStatuses, planDisplayName } from '@qw/contracts';

/**
 * Whether the person's own plan keeps their personal devices on (issue #15: the Devices page says
 * why they are inactive instead of answering Add and Activate with errors). A plan that entitles
 * (active, or past due while the card is retried) keeps them; none, or one that ended, does not.
 */
export type PlanStanding = { kind: 'entitled' } | { kind: 'no_plan' } | { kind: 'ended'; plan: string };

export function planStanding(
  subscription: { status: string; plan: string; org_id?: string | null } | null | undefined,
): PlanStanding {
  if (!subscription || (subscription.org_id ?? null) !== null) return { kind: 'no_plan' };
  if ((entitlingStatuses as readonly string[]).includes(subscription.status)) return { kind: 'entitled' };
  return { kind: 'ended', plan: planDisplayName(subscription.plan) };
}

/** Why the devices are inactive, in the page's words; null while the plan entitles them. */
export function inactiveDevicesText(standing: PlanStanding): string | null {
  if (standing.kind === 'no_plan')
    return 'You have no active plan, so your devices are inactive. Choose a plan in Billing to add and activate devices.';
  if (standing.kind === 'ended')
    return `Your ${standing.plan} plan was canceled, so your devices are inactive. Subscribe again in Billing to turn them back on.`;
  return null;
}
