import type { organizationRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { organizationsKey } from './get-organizations';

/** GET /api/orgs/{id} → name, plan, users with the cap, devices cap, created, Active or Suspended. */
export type OrganizationDetail = RouteAnswer<typeof organizationRoute>;

/** Everything of one organization lives under this key; its mutations invalidate it. */
export function organizationKey(orgId: string) {
  return [...organizationsKey, orgId] as const;
}

export function getOrganization(orgId: string): Promise<OrganizationDetail> {
  return api.get<OrganizationDetail>(`/api/orgs/${encodeURIComponent(orgId)}`);
}

export function useOrganization(orgId: string | null) {
  return useQuery({
    queryKey: [...organizationKey(orgId ?? ''), 'detail'],
    queryFn: () => getOrganization(orgId ?? ''),
    enabled: orgId !== null,
  });
}
