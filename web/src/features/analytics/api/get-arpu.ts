import type { arpuRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/arpu?days=30 (spec §7 arpu_cents): net revenue per paying customer. */
export type Arpu = RouteAnswer<typeof arpuRoute>;
export type ArpuDays = RouteQuery<typeof arpuRoute>['days'];

export function getArpu(days: ArpuDays, hideTest = false): Promise<Arpu> {
  return api.get<Arpu>('/api/admin/analytics/arpu', { query: { days, ...testAccountsQuery(hideTest) } });
}

export function useArpu(days: ArpuDays) {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...analyticsKey, 'arpu', days, hide], queryFn: () => getArpu(days, hide) });
}
