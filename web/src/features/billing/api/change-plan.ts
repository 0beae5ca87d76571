import type { PlanChange } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/**
 * POST /api/billing/change-plan {subscription_id, plan_code} (bearer): an upgrade now with the rest
 * of the period charged at once, a downgrade from the next renewal; the current plan again calls
 * off a waiting downgrade. 409 for a plan that ended, is set to end or is past due.
 */
export type { PlanChange };

export type ChangePlanBody = { subscription_id: string; plan_code: string };

export function changePlan(body: ChangePlanBody): Promise<PlanChange> {
  return api.post<PlanChange>('/api/billing/change-plan', body);
}

export function useChangePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...billingKey, 'change-plan'],
    mutationFn: changePlan,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKey }),
  });
}
