import { checkoutQuantity, type Plan } from '@qw/contracts';
import { useMutation } from '@tanstack/react-query';
import { api, isApiError } from '../../../lib/api-client';

/** Spec §7 POST /api/checkout. */
export type CreateCheckoutSessionBody = {
  plan_code: string;
  plan_name: string;
  account_type: 'personal' | 'business';
  quantity: number;
  /** Always empty for now: the payment page asks for the email. */
  customer_email: string | undefined;
};

export const createCheckoutSessionKey = ['checkout', 'create-session'] as const;

export function checkoutBodyFor(plan: Plan): CreateCheckoutSessionBody {
  return {
    plan_code: plan.code,
    plan_name: plan.name,
    account_type: plan.accountType === 'business' ? 'business' : 'personal',
    quantity: checkoutQuantity,
    customer_email: undefined,
  };
}

/** Starts a checkout and returns the payment page URL. Errors carry the spec §8 texts. */
export async function createCheckoutSession(plan: Plan): Promise<string> {
  let answer: { url?: unknown } | undefined;
  try {
    answer = await api.post<{ url?: unknown }>('/api/checkout', checkoutBodyFor(plan));
  } catch (error) {
    // An OK answer that is not JSON has no url either.
    if (isApiError(error) && error.code === 'invalid_response') throw new Error("Missing 'url' in API response");
    if (isApiError(error) && error.status > 0) throw new Error(`Checkout failed: ${error.status} ${error.body}`);
    throw error;
  }
  if (!answer || typeof answer.url !== 'string' || answer.url === '') throw new Error("Missing 'url' in API response");
  return answer.url;
}

export function useCreateCheckoutSession() {
  return useMutation({ mutationKey: createCheckoutSessionKey, mutationFn: createCheckoutSession });
}
