import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationKey } from './get-organization';

/** DELETE /api/orgs/{id}/invitations/{invitationId} (owners and admins): the link stops working. */
export function revokeInvitation(input: { orgId: string; invitationId: string }): Promise<unknown> {
  return api.delete(
    `/api/orgs/${encodeURIComponent(input.orgId)}/invitations/${encodeURIComponent(input.invitationId)}`,
  );
}

export function useRevokeInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeInvitation,
    onSuccess: (_answer, input) => queryClient.invalidateQueries({ queryKey: organizationKey(input.orgId) }),
  });
}
