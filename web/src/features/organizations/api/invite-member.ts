import type { inviteMemberRoute, RouteAnswer, RouteBody } from '@qw/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationKey } from './get-organization';

/** POST /api/orgs/{id}/invitations {email, role} → 201 {invitation}; the link is mailed to the address. */
export function inviteMember(
  input: { orgId: string } & RouteBody<typeof inviteMemberRoute>,
): Promise<RouteAnswer<typeof inviteMemberRoute, 201>> {
  return api.post<RouteAnswer<typeof inviteMemberRoute, 201>>(
    `/api/orgs/${encodeURIComponent(input.orgId)}/invitations`,
    { email: input.email, role: input.role },
  );
}

export function useInviteMember() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: inviteMember,
    onSuccess: (_answer, input) => queryClient.invalidateQueries({ queryKey: organizationKey(input.orgId) }),
  });
}
