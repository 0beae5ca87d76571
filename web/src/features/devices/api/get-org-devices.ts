import type { orgDevicesRoute, RouteAnswer } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshFor } from '../utils/status-refresh';
import { devicesKey } from './get-devices';

/**
 * GET /api/orgs/{id}/devices → one page of the organization's devices with their status (owners
 * and admins: all; members: their own), newest first, with `total`, `page` and `per_page`, and
 * the whole organization's quota: 5 per person ('n/5'), counts by assignee, the plan's cap.
 */
export type OrgDevicesAnswer = RouteAnswer<typeof orgDevicesRoute>;
export type OrgDeviceQuota = OrgDevicesAnswer['quota'];

/** Which page, and of which devices (the route's query; the server's defaults where unsaid). */
export type OrgDevicesQuery = {
  page?: number;
  per_page?: number;
  assignee_id?: string;
  q?: string;
};

/** Under the devices key, so every device mutation (rename, suspend, remove, key) refreshes it too. */
export function orgDevicesKey(orgId: string) {
  return [...devicesKey, 'org', orgId] as const;
}

/** Every page of the organization's list asked for, whatever its query. */
export function orgDeviceListsKey(orgId: string) {
  return [...orgDevicesKey(orgId), 'list'] as const;
}

export function orgDevicesPath(orgId: string, query: OrgDevicesQuery = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `/api/orgs/${encodeURIComponent(orgId)}/devices${search ? `?${search}` : ''}`;
}

export function getOrgDevices(orgId: string, query: OrgDevicesQuery = {}): Promise<OrgDevicesAnswer> {
  return api.get<OrgDevicesAnswer>(orgDevicesPath(orgId, query));
}

/** One page of the list; the page shown stays while the next one loads. */
export function useOrgDevices(orgId: string | null, query: OrgDevicesQuery = {}) {
  return useQuery({
    queryKey: [...orgDeviceListsKey(orgId ?? ''), query],
    queryFn: () => getOrgDevices(orgId ?? '', query),
    enabled: orgId !== null,
    placeholderData: keepPreviousData,
    refetchInterval: (q) => statusRefreshFor(q.state.data?.devices),
  });
}
