import type { DeviceView } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** GET /api/devices → the person's own devices (org_id null), newest first, with their status. */
export type DeviceRow = DeviceView & { is_connected: boolean; latest_handshake: string | null; rx_bytes: number; tx_bytes: number };

export const devicesKey = ['devices'] as const;
/** Status refreshes by itself: node agents report every 10 s. */
export const statusRefreshMs = 10_000;

export function getDevices(): Promise<{ devices: DeviceRow[] }> {
  return api.get<{ devices: DeviceRow[] }>('/api/devices');
}

export function useDevices() {
  return useQuery({ queryKey: [...devicesKey, 'list'], queryFn: getDevices, refetchInterval: statusRefreshMs, select: (data) => data.devices });
}
