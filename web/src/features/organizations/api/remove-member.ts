import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationsKey } from './get-organizations';

/** DELETE /api/orgs/{id}/users/{userId} (owners and admins; never the last owner): their organization devices go too. */
export function removeMember(input: { orgId: string; userId: string }): Promise<unknown> {
  return api.delete(`/api/orgs/${encodeURIComponent(input.orgId)}/users/${encodeURIComponent(input.userId)}`);
}

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removeMember,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationsKey }),
  });
}
