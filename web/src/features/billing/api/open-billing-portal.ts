import type { manageBillingRoute, RouteAnswer } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * GET /api/billing/manage?return=<path>[&org_id=<organization>] (bearer) → { url } of the billing
 * portal (Stripe's, or the local test portal) for the person's plan or an organization's. A plain
 * navigation to /api/billing/manage carries no token, so the Manage Billing link fetches the
 * address first and then sends the browser there.
 */
export const billingPortalKey = ['billing', 'portal'] as const;

export type BillingPortalRequest = { returnPath: string; orgId: string | null };

export async function getBillingPortalUrl({ returnPath, orgId }: BillingPortalRequest): Promise<string> {
  const { url } = await api.get<RouteAnswer<typeof manageBillingRoute>>('/api/billing/manage', {
    query: { return: returnPath, org_id: orgId ?? undefined },
  });
  return withOrganization(url, orgId);
}

/** The local test portal reads which organization's plan to show from its own query. */
export function withOrganization(url: string, orgId: string | null): string {
  if (!orgId) return url;
  try {
    const parsed = new URL(url, window.location.origin);
    if (parsed.origin !== window.location.origin || parsed.pathname !== '/billing/test-portal') return url;
    parsed.searchParams.set('org_id', orgId);
    return parsed.toString();
  } catch {
    return url;
  }
}

export function useBillingPortal() {
  return useMutation({ mutationKey: billingPortalKey, mutationFn: getBillingPortalUrl });
}

/** The link's own address (a new tab, no script): spec §2's /api/billing/manage, with the organization's id. */
export function manageBillingLink(orgId: string | null): string {
  return orgId ? `/api/billing/manage?org_id=${encodeURIComponent(orgId)}` : '/api/billing/manage';
}
