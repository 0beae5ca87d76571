import type { orgOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshMs } from './get-devices';
import { orgDevicesKey } from './get-org-devices';

/** GET /api/orgs/{id}/overview → Devices, Connected and VPN Status of the organization (a member's own devices). */
export type OrgOverview = RouteAnswer<typeof orgOverviewRoute>;

export function getOrgOverview(orgId: string): Promise<OrgOverview> {
  return api.get<OrgOverview>(`/api/orgs/${encodeURIComponent(orgId)}/overview`);
}

export function useOrgOverview(orgId: string | null) {
  return useQuery({
    queryKey: [...orgDevicesKey(orgId ?? ''), 'overview'],
    queryFn: () => getOrgOverview(orgId ?? ''),
    enabled: orgId !== null,
    refetchInterval: statusRefreshMs,
  });
}
