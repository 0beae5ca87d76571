import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** POST /api/me/mfa/disable {code} → 204 (a current code or a recovery code); 400 wrong code. */
export const disableMfaKey = [...meKey, 'mfa', 'disable'] as const;

export function disableMfa(code: string): Promise<void> {
  return api.post<void>('/api/me/mfa/disable', { code });
}

export function useDisableMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: disableMfaKey,
    mutationFn: disableMfa,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meKey }),
  });
}
