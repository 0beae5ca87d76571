import type { claimCheckoutRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { verifyCheckoutKey } from './verify-checkout';

/**
 * Spec §7 POST /api/checkout/claim (bearer) {session_id, email, plan_code, account_type, quantity}
 * → the subscription now belongs to the signed-in account; business plans also get an organization.
 * 409 email_mismatch or already claimed by someone else.
 */
export type ClaimCheckoutBody = RouteBody<typeof claimCheckoutRoute>;
export type ClaimedCheckout = RouteAnswer<typeof claimCheckoutRoute>;

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
