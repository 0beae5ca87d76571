import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/**
 * POST /api/billing/test-portal/cancel {subscription_id} (bearer, test provider only). Within 7
 * days of the first payment: refunded in full and canceled now; later: cancels at period end.
 */
export type CancelOutcome = { status: string; refunded_cents: number; cancel_at_period_end: boolean };

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
