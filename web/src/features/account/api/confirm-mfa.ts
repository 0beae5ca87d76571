import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';

/** POST /api/me/mfa/confirm {code} → ten recovery codes, shown once; 400 wrong code. Turns two-factor on (/api/me mfa_enabled). */
export const confirmMfaKey = [...meKey, 'mfa', 'confirm'] as const;

export function confirmMfa(code: string): Promise<{ recovery_codes: string[] }> {
  return api.post<{ recovery_codes: string[] }>('/api/me/mfa/confirm', { code });
}

export function useConfirmMfa() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: confirmMfaKey,
    mutationFn: confirmMfa,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: meKey }),
  });
}
