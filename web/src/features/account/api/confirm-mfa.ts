import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';
import { useAuth } from '../../../lib/auth/auth-provider';
import type { mfaConfirmRoute, RouteAnswer } from '@qw/contracts';

/**
 * POST /api/me/mfa/confirm {code} → ten recovery codes, shown once, and a new session; 400 wrong
 * code, 403 email_unverified. Turns two-factor on (/api/me mfa_enabled) and ends every session of
 * the account, this tab's included: the answer's session (which passed the second factor) replaces it.
 */
export type MfaConfirmation = RouteAnswer<typeof mfaConfirmRoute>;

export const confirmMfaKey = [...meKey, 'mfa', 'confirm'] as const;

export function confirmMfa(code: string): Promise<MfaConfirmation> {
  return api.post<MfaConfirmation>('/api/me/mfa/confirm', { code });
}

export function useConfirmMfa() {
  const queryClient = useQueryClient();
  const { adoptSession } = useAuth();
  return useMutation({
    mutationKey: confirmMfaKey,
    mutationFn: confirmMfa,
    onSuccess: ({ recovery_codes: _codes, ...session }) => {
      adoptSession(session);
      return queryClient.invalidateQueries({ queryKey: meKey });
    },
  });
}
