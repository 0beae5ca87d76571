import type { Me } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api-client';

/** GET /api/me: user, profile, resolved role, admin flag, email_verified, mfa_enabled, org_member. */
export const meKey = ['me'] as const;

export function getMe(): Promise<Me> {
  return api.get<Me>('/api/me');
}

export function useMeQuery(userId: string | null) {
  return useQuery({ queryKey: [...meKey, userId], queryFn: getMe, enabled: userId !== null, staleTime: 60_000 });
}
