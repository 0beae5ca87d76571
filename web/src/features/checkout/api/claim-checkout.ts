import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { verifyCheckoutKey } from './verify-checkout';

/**
 * Spec §7 POST /api/checkout/claim (bearer) {session_id, email, plan_code, account_type, quantity}
 * → the subscription now belongs to the signed-in account; business plans also get an organization.
 * 409 email_mismatch or already claimed by someone else.
 */
export type ClaimCheckoutBody = { session_id: string; email: string; plan_code: string; account_type: string; quantity: number };
export type ClaimedCheckout = { subscription_id: string; account_type: string; org_id: string | null };

export function claimCheckout(body: ClaimCheckoutBody): Promise<ClaimedCheckout> {
  return api.post<ClaimedCheckout>('/api/checkout/claim', body);
}

export function useClaimCheckout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['checkout', 'claim'],
    mutationFn: claimCheckout,
    onSuccess: (_claimed, body) => queryClient.invalidateQueries({ queryKey: verifyCheckoutKey(body.session_id) }),
  });
}
