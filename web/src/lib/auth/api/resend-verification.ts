import { useMutation } from '@tanstack/react-query';
import { api } from '../../api-client';

/** POST /api/auth/resend-verification (bearer) → { sent }; 429 rate_limited. */
export const resendVerificationKey = ['auth', 'resend-verification'] as const;

export function resendVerification(): Promise<{ sent: boolean }> {
  return api.post<{ sent: boolean }>('/api/auth/resend-verification');
}

export function useResendVerification() {
  return useMutation({ mutationKey: resendVerificationKey, mutationFn: resendVerification });
}
