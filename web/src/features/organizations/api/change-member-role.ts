import type { changeMemberRoleRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationsKey } from './get-organizations';

/** PATCH /api/orgs/{id}/users/{userId} {role} (owners and admins; the last owner stays one). */
export function changeMemberRole(
  input: { orgId: string; userId: string } & RouteBody<typeof changeMemberRoleRoute>,
): Promise<RouteAnswer<typeof changeMemberRoleRoute>> {
  return api.patch<RouteAnswer<typeof changeMemberRoleRoute>>(
    `/api/orgs/${encodeURIComponent(input.orgId)}/users/${encodeURIComponent(input.userId)}`,
    { role: input.role },
  );
}

export function useChangeMemberRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeMemberRole,
    // The person's own role is in the selector's list.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationsKey }),
  });
}
