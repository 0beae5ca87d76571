import type { BillingDetails } from '@qw/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/**
 * GET and POST /api/billing/details [?org_id] (bearer): the company name, address and VAT ID every
 * receipt shows (issue #26); a person's own, or an organization's (its owners set them).
 */
export type { BillingDetails };

const detailsKey = (orgId: string | null) => [...billingKey, 'details', orgId ?? 'personal'] as const;
const query = (orgId: string | null) => ({ org_id: orgId ?? undefined });

export function useBillingDetails(orgId: string | null) {
  return useQuery({
    queryKey: detailsKey(orgId),
    queryFn: () => api.get<BillingDetails>('/api/billing/details', { query: query(orgId) }),
  });
}

export function useSetBillingDetails(orgId: string | null) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...billingKey, 'set-details'],
    mutationFn: (details: BillingDetails) =>
      api.post<BillingDetails>('/api/billing/details', details, { query: query(orgId) }),
    onSuccess: (saved) => queryClient.setQueryData(detailsKey(orgId), saved),
  });
}
