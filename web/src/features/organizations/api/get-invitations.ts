import type { invitationsRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationKey } from './get-organization';

/** GET /api/orgs/{id}/invitations → invitations not yet accepted, revoked or expired (owners and admins). */
export type PendingInvitation = RouteAnswer<typeof invitationsRoute>['invitations'][number];

export function getInvitations(orgId: string): Promise<PendingInvitation[]> {
  return api
    .get<RouteAnswer<typeof invitationsRoute>>(`/api/orgs/${encodeURIComponent(orgId)}/invitations`)
    .then((answer) => answer.invitations);
}

export function useInvitations(orgId: string | null, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...organizationKey(orgId ?? ''), 'invitations'],
    queryFn: () => getInvitations(orgId ?? ''),
    enabled: orgId !== null && (options.enabled ?? true),
  });
}
