import { dailyChartDays, type funnelRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/funnel?days=60 (spec §3 funnel_last_60d): visits, sign-ups, first payments per day. */
export type Funnel = RouteAnswer<typeof funnelRoute>;

export function getFunnel(days: number = dailyChartDays): Promise<Funnel> {
  return api.get<Funnel>('/api/admin/analytics/funnel', { query: { days } });
}

export function useFunnel(days: number = dailyChartDays) {
  return useQuery({ queryKey: [...analyticsKey, 'funnel', days], queryFn: () => getFunnel(days) });
}
