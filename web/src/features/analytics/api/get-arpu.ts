import type { arpuRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/arpu?days=30 (spec §7 arpu_cents): net revenue per paying customer. */
export type Arpu = RouteAnswer<typeof arpuRoute>;
export type ArpuDays = RouteQuery<typeof arpuRoute>['days'];

export function getArpu(days: ArpuDays): Promise<Arpu> {
  return api.get<Arpu>('/api/admin/analytics/arpu', { query: { days } });
}

export function useArpu(days: ArpuDays) {
  return useQuery({ queryKey: [...analyticsKey, 'arpu', days], queryFn: () => getArpu(days) });
}
