import type { orgDevicesRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshFor } from '../utils/status-refresh';
import { devicesKey } from './get-devices';

/**
 * GET /api/orgs/{id}/devices → the organization's devices with their status (owners and admins:
 * all; members: their own) and the quota: 5 per person ('n/5'), counts by assignee, the plan's cap.
 */
export type OrgDevicesAnswer = RouteAnswer<typeof orgDevicesRoute>;
export type OrgDeviceQuota = OrgDevicesAnswer['quota'];

/** Under the devices key, so every device mutation (rename, suspend, remove, key) refreshes it too. */
export function orgDevicesKey(orgId: string) {
  return [...devicesKey, 'org', orgId] as const;
}

export function getOrgDevices(orgId: string): Promise<OrgDevicesAnswer> {
  return api.get<OrgDevicesAnswer>(`/api/orgs/${encodeURIComponent(orgId)}/devices`);
}

export function useOrgDevices(orgId: string | null) {
  return useQuery({
    queryKey: [...orgDevicesKey(orgId ?? ''), 'list'],
    queryFn: () => getOrgDevices(orgId ?? ''),
    enabled: orgId !== null,
    refetchInterval: (query) => statusRefreshFor(query.state.data?.devices),
  });
}
