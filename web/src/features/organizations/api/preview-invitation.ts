import type { previewInvitationRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST /api/invitations/preview {token} → organization, email, role, expiry and whether the address has an account. */
export type InvitationPreview = RouteAnswer<typeof previewInvitationRoute>;

export const invitationKey = ['invitation'] as const;

export function previewInvitation(token: string): Promise<InvitationPreview> {
  return api.post<InvitationPreview>('/api/invitations/preview', { token }, { skipAuth: true });
}

export function useInvitationPreview(token: string | null) {
  return useQuery({
    queryKey: [...invitationKey, token],
    queryFn: () => previewInvitation(token ?? ''),
    enabled: !!token,
    staleTime: Number.POSITIVE_INFINITY,
  });
}
