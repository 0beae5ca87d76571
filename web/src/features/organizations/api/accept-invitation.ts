import type { acceptInvitationRoute, RouteAnswer } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';
import { organizationsKey } from './get-organizations';

/** POST /api/invitations/accept {token} (signed in with the invited address) → the organization joined. */
export type AcceptedInvitation = RouteAnswer<typeof acceptInvitationRoute>;

export function acceptInvitation(token: string): Promise<AcceptedInvitation> {
  return api.post<AcceptedInvitation>('/api/invitations/accept', { token });
}

export function useAcceptInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: acceptInvitation,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: organizationsKey });
      // org_member and the verified address change.
      await queryClient.invalidateQueries({ queryKey: meKey });
    },
  });
}
