import type { listDevicesRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { statusRefreshFor } from '../utils/status-refresh';

/** GET /api/devices → the person's own devices (org_id null), newest first, with their status. */
export type DeviceRow = DevicesAnswer['devices'][number];
type DevicesAnswer = RouteAnswer<typeof listDevicesRoute>;

export const devicesKey = ['devices'] as const;
export { statusRefreshMs } from '../utils/status-refresh';

export function getDevices(): Promise<DevicesAnswer> {
  return api.get<DevicesAnswer>('/api/devices');
}

export function useDevices() {
  return useQuery({
    queryKey: [...devicesKey, 'list'],
    queryFn: getDevices,
    refetchInterval: (query) => statusRefreshFor(query.state.data?.devices),
    select: (data) => data.devices,
  });
}
