import type { orgOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshFor } from '../utils/status-refresh';
import { type OrgDevicesAnswer, orgDeviceListsKey, orgDevicesKey } from './get-org-devices';

/** GET /api/orgs/{id}/overview → Devices, Connected and VPN Status of the organization (a member's own devices). */
export type OrgOverview = RouteAnswer<typeof orgOverviewRoute>;

export function getOrgOverview(orgId: string): Promise<OrgOverview> {
  return api.get<OrgOverview>(`/api/orgs/${encodeURIComponent(orgId)}/overview`);
}

/** As often as the organization's device lists beside it (any page of them). */
export function useOrgOverview(orgId: string | null) {
  const client = useQueryClient();
  return useQuery({
    queryKey: [...orgDevicesKey(orgId ?? ''), 'overview'],
    queryFn: () => getOrgOverview(orgId ?? ''),
    enabled: orgId !== null,
    refetchInterval: () =>
      statusRefreshFor(
        client
          .getQueriesData<OrgDevicesAnswer>({ queryKey: orgDeviceListsKey(orgId ?? '') })
          .flatMap(([, answer]) => answer?.devices ?? []),
      ),
  });
}
