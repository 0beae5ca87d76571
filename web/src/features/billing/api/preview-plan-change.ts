import type { PlanChangePreview } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/**
 * GET /api/billing/change-plan/preview?subscription_id&plan_code (bearer) → when the change takes
 * effect, what is charged now (the same proration the change charges) and the next renewal.
 */
export type { PlanChangePreview };

export function previewPlanChangeKey(subscriptionId: string, planCode: string) {
  return [...billingKey, 'preview', subscriptionId, planCode] as const;
}

export function previewPlanChange(subscriptionId: string, planCode: string): Promise<PlanChangePreview> {
  return api.get<PlanChangePreview>('/api/billing/change-plan/preview', {
    query: { subscription_id: subscriptionId, plan_code: planCode },
  });
}

/** Asked only for a plan other than the current one; never cached for long (the proration moves with time). */
export function usePlanChangePreview(subscriptionId: string | null, planCode: string | null) {
  return useQuery({
    queryKey: previewPlanChangeKey(subscriptionId ?? '', planCode ?? ''),
    queryFn: () => previewPlanChange(subscriptionId ?? '', planCode ?? ''),
    enabled: Boolean(subscriptionId && planCode),
    staleTime: 0,
    retry: false,
  });
}
