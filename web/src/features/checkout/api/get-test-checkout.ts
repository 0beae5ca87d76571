import type { RouteAnswer, testCheckoutRoute } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** GET /api/billing/test-checkout/:id → the local test provider's checkout (status open, paid or claimed); 404 unknown. */
export type TestCheckout = RouteAnswer<typeof testCheckoutRoute>;

export function testCheckoutKey(sessionId: string) {
  return ['checkout', 'test', sessionId] as const;
}

export function getTestCheckout(sessionId: string): Promise<TestCheckout> {
  return api.get<TestCheckout>(`/api/billing/test-checkout/${encodeURIComponent(sessionId)}`, { skipAuth: true });
}

export function useTestCheckout(sessionId: string) {
  return useQuery({ queryKey: testCheckoutKey(sessionId), queryFn: () => getTestCheckout(sessionId) });
}
