import type { RouteAnswer, testCheckoutPayRoute } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testCheckoutKey } from './get-test-checkout';

/**
 * POST /api/billing/test-checkout/:id/pay {email, card_number} → {redirect_url} (/post-checkout?sid=…).
 * 400 a bad card or email (details.field), 402 payment_declined (4000 0000 0000 0002).
 */
export type PayTestCheckoutBody = { sessionId: string; email: string; card_number: string };

export function payTestCheckout({ sessionId, ...body }: PayTestCheckoutBody): Promise<{ redirect_url: string }> {
  return api.post<RouteAnswer<typeof testCheckoutPayRoute>>(
    `/api/billing/test-checkout/${encodeURIComponent(sessionId)}/pay`,
    body,
    {
      skipAuth: true,
    },
  );
}

export function usePayTestCheckout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['checkout', 'test', 'pay'],
    mutationFn: payTestCheckout,
    onSettled: (_answer, _error, body) => queryClient.invalidateQueries({ queryKey: testCheckoutKey(body.sessionId) }),
  });
}
