import { dailyChartDays, type funnelRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/funnel?days=60 (spec §3 funnel_last_60d): visits, sign-ups, first payments per day. */
export type Funnel = RouteAnswer<typeof funnelRoute>;

export function getFunnel(days: number = dailyChartDays, hideTest = false): Promise<Funnel> {
  return api.get<Funnel>('/api/admin/analytics/funnel', { query: { days, ...testAccountsQuery(hideTest) } });
}

export function useFunnel(days: number = dailyChartDays) {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...analyticsKey, 'funnel', days, hide], queryFn: () => getFunnel(days, hide) });
}
