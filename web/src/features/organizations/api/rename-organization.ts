import type { renameOrganizationRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationsKey } from './get-organizations';

/** PATCH /api/orgs/{id} {name} (owners and admins) → the organization. */
export function renameOrganization(
  input: { orgId: string } & RouteBody<typeof renameOrganizationRoute>,
): Promise<RouteAnswer<typeof renameOrganizationRoute>> {
  return api.patch<RouteAnswer<typeof renameOrganizationRoute>>(`/api/orgs/${encodeURIComponent(input.orgId)}`, {
    name: input.name,
  });
}

export function useRenameOrganization() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: renameOrganization,
    // The selector's list carries the name too.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationsKey }),
  });
}
