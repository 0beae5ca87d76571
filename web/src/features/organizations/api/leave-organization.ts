import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { meKey } from '../../../lib/auth/api/get-me';
import { organizationsKey } from './get-organizations';

/** POST /api/orgs/{id}/leave (not as its last owner): your organization devices are removed. */
export function leaveOrganization(orgId: string): Promise<unknown> {
  return api.post(`/api/orgs/${encodeURIComponent(orgId)}/leave`, {});
}

export function useLeaveOrganization() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: leaveOrganization,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: organizationsKey });
      // /api/me's org_member decides where the person lands (spec §6).
      await queryClient.invalidateQueries({ queryKey: meKey });
    },
  });
}
