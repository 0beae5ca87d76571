import type { resumeSubscriptionRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

/** POST /api/billing/resume {subscription_id} (bearer): a plan set to end with its period renews again. */
export type ResumedSubscription = RouteAnswer<typeof resumeSubscriptionRoute>;

export function resumeSubscription(subscriptionId: string): Promise<ResumedSubscription> {
  return api.post<ResumedSubscription>('/api/billing/resume', { subscription_id: subscriptionId });
}

export function useResumeSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...billingKey, 'resume'],
    mutationFn: resumeSubscription,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKey }),
  });
}
