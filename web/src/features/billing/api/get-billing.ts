import type { BillingOverview } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * GET /api/billing [?org_id] → the current plan and the invoices (period_start descending), for
 * the signed-in person (org_id absent) or one of their organizations.
 */
export const billingKey = ['billing'] as const;

export function billingQueryKey(orgId: string | null) {
  return [...billingKey, orgId ?? 'personal'] as const;
}

export function getBilling(orgId: string | null): Promise<BillingOverview> {
  return api.get<BillingOverview>('/api/billing', { query: { org_id: orgId ?? undefined } });
}

export function useBilling(orgId: string | null, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: billingQueryKey(orgId),
    queryFn: () => getBilling(orgId),
    enabled: options.enabled ?? true,
  });
}
