import type { CancelOutcome } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/**
 * POST /api/billing/test-portal/cancel {subscription_id} (bearer, test provider only). Within 7
 * days of the first payment, once per customer: refunded in full and canceled now; otherwise it
 * cancels at period end (`money_back: 'already_used'` when the guarantee was used before).
 */
export type { CancelOutcome };

export const cancelSubscriptionKey = [...billingKey, 'cancel'] as const;

export function cancelSubscription(subscriptionId: string): Promise<CancelOutcome> {
  return api.post<CancelOutcome>('/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: cancelSubscriptionKey,
    mutationFn: cancelSubscription,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKey }),
  });
}
