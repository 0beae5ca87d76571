import type { deviceOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshFor } from '../utils/status-refresh';
import { devicesKey, type getDevices } from './get-devices';

/** GET /api/overview → the Overview tiles: devices, connected, VPN status (Online or Idle). */
export type Overview = RouteAnswer<typeof deviceOverviewRoute>;

export function getOverview(): Promise<Overview> {
  return api.get<Overview>('/api/overview');
}

/** As often as the device list beside it (each second while a new device waits for its first handshake). */
export function useOverview() {
  const client = useQueryClient();
  return useQuery({
    queryKey: [...devicesKey, 'overview'],
    queryFn: getOverview,
    refetchInterval: () =>
      statusRefreshFor(client.getQueryData<Awaited<ReturnType<typeof getDevices>>>([...devicesKey, 'list'])?.devices),
  });
}
