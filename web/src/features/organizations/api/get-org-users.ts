import type { orgUsersRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationKey } from './get-organization';

/** GET /api/orgs/{id}/users → spec §7 list_org_users: user_id, full_name, email, role (owners and admins). */
export type OrgUser = RouteAnswer<typeof orgUsersRoute>['users'][number];

export function getOrgUsers(orgId: string): Promise<OrgUser[]> {
  return api
    .get<RouteAnswer<typeof orgUsersRoute>>(`/api/orgs/${encodeURIComponent(orgId)}/users`)
    .then((answer) => answer.users);
}

/** Only owners and admins may ask: pass `enabled: false` for anyone else. */
export function useOrgUsers(orgId: string | null, options: { enabled?: boolean; refetchInterval?: number } = {}) {
  return useQuery({
    queryKey: [...organizationKey(orgId ?? ''), 'users'],
    queryFn: () => getOrgUsers(orgId ?? ''),
    enabled: orgId !== null && (options.enabled ?? true),
    refetchInterval: options.refetchInterval,
  });
}

/** A person as the lists name them: the full name, else the address. */
export function userLabel(user: Pick<OrgUser, 'full_name' | 'email'>): string {
  return user.full_name?.trim() || user.email;
}
