import type { deviceOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { devicesKey, statusRefreshMs } from './get-devices';

/** GET /api/overview → the Overview tiles: devices, connected, VPN status (Online or Idle). */
export type Overview = RouteAnswer<typeof deviceOverviewRoute>;

export function getOverview(): Promise<Overview> {
  return api.get<Overview>('/api/overview');
}

export function useOverview() {
  return useQuery({ queryKey: [...devicesKey, 'overview'], queryFn: getOverview, refetchInterval: statusRefreshMs });
}
