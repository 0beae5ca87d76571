import { dailyChartDays, type revenueDailyRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/revenue-daily?days=60 (spec §3 revenue_daily_last_730): a row per day, zeros included. */
export type RevenueDaily = RouteAnswer<typeof revenueDailyRoute>;

export function getRevenueDaily(days: number = dailyChartDays, hideTest = false): Promise<RevenueDaily> {
  return api.get<RevenueDaily>('/api/admin/analytics/revenue-daily', {
    query: { days, ...testAccountsQuery(hideTest) },
  });
}

export function useRevenueDaily(days: number = dailyChartDays) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'revenue-daily', days, hide],
    queryFn: () => getRevenueDaily(days, hide),
  });
}
