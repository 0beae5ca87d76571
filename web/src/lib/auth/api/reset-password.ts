import { useMutation } from '@tanstack/react-query';
import { api } from '../../api-client';

/** POST /api/auth/password/reset {token, password} → 204; 410 link_expired, 404, 422 weak_password. Ends every session. */
export const resetPasswordKey = ['auth', 'password-reset'] as const;

export function resetPassword(body: { token: string; password: string }): Promise<void> {
  return api.post<void>('/api/auth/password/reset', body, { skipAuth: true });
}

export function useResetPassword() {
  return useMutation({ mutationKey: resetPasswordKey, mutationFn: resetPassword });
}
