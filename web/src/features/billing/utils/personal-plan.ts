import { entitlingStatuses } from '@qw/contracts';

/**
 * A personal plan that entitles its owner now (active, or past due while the card is retried): the
 * business area then links to the personal one. Not in lib/redirects.ts, which every page loads:
 * the billing contract module carries TypeBox schemas the public pages must not.
 */
export function hasPersonalPlan(subscription: { status: string; org_id?: string | null } | null | undefined): boolean {
  if (!subscription || (subscription.org_id ?? null) !== null) return false;
  return (entitlingStatuses as readonly string[]).includes(subscription.status);
}
