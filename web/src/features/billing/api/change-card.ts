import type { CardChanged } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { billingKey } from './get-billing';

export type { CardChanged };

/**
 * POST /api/billing/test-portal/card {subscription_id, card_number} (test provider only): renewals
 * use the new card, and a renewal that failed is paid with it at once (`settled_cents`).
 */
export function useChangeCard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: [...billingKey, 'card'],
    mutationFn: (input: { subscriptionId: string; cardNumber: string }) =>
      api.post<CardChanged>('/api/billing/test-portal/card', {
        subscription_id: input.subscriptionId,
        card_number: input.cardNumber,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKey }),
  });
}
