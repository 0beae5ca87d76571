import type { appCheckoutRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * POST /api/billing/checkout {plan_code, org_name?} (bearer) → the payment page for the signed-in
 * person: a plan again after one ended, or a Business plan that makes an organization with that
 * name. The payment page comes back to /checkout/complete, which adds the purchase to the account.
 */
export type AppCheckoutBody = RouteBody<typeof appCheckoutRoute>;
export type AppCheckoutStarted = RouteAnswer<typeof appCheckoutRoute>;

export function startAppCheckout(body: AppCheckoutBody): Promise<AppCheckoutStarted> {
  return api.post<AppCheckoutStarted>('/api/billing/checkout', body);
}

export function useStartAppCheckout() {
  return useMutation({ mutationKey: ['billing', 'app-checkout'], mutationFn: startAppCheckout });
}
