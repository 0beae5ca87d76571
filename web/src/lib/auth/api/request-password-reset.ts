import { useMutation } from '@tanstack/react-query';
import { api } from '../../api-client';

/** POST /api/auth/password/forgot {email} → 202 {} whether or not the account exists; the mail links to /reset-password?token=…. */
export const requestPasswordResetKey = ['auth', 'password-forgot'] as const;

export function requestPasswordReset(email: string): Promise<void> {
  return api.post<void>('/api/auth/password/forgot', { email }, { skipAuth: true });
}

export function useRequestPasswordReset() {
  return useMutation({ mutationKey: requestPasswordResetKey, mutationFn: requestPasswordReset });
}
