import type { listDevicesRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** GET /api/devices → the person's own devices (org_id null), newest first, with their status. */
export type DeviceRow = DevicesAnswer['devices'][number];
type DevicesAnswer = RouteAnswer<typeof listDevicesRoute>;

export const devicesKey = ['devices'] as const;
/** Status refreshes by itself: node agents report every 10 s. */
export const statusRefreshMs = 10_000;

export function getDevices(): Promise<DevicesAnswer> {
  return api.get<DevicesAnswer>('/api/devices');
}

export function useDevices() {
  return useQuery({
    queryKey: [...devicesKey, 'list'],
    queryFn: getDevices,
    refetchInterval: statusRefreshMs,
    select: (data) => data.devices,
  });
}
