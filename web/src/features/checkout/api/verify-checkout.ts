import type { RouteAnswer, verifyCheckoutRoute } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * Spec §7 GET /api/checkout/verify?session_id=… → what was paid: email, plan_code ('unknown' for
 * codes outside the catalog), account_type, quantity (seats). 409 while unpaid, 404 unknown.
 */
export type CheckoutVerification = RouteAnswer<typeof verifyCheckoutRoute>;

export function verifyCheckoutKey(sessionId: string) {
  return ['checkout', 'verify', sessionId] as const;
}

export function verifyCheckout(sessionId: string): Promise<CheckoutVerification> {
  return api.get<CheckoutVerification>('/api/checkout/verify', { query: { session_id: sessionId }, skipAuth: true });
}

export function useVerifyCheckout(sessionId: string | null) {
  return useQuery({
    queryKey: verifyCheckoutKey(sessionId ?? ''),
    queryFn: () => verifyCheckout(sessionId ?? ''),
    enabled: sessionId !== null,
    retry: false,
    staleTime: Infinity,
  });
}
