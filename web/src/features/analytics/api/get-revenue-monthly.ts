import { monthlyChartMonths, type revenueMonthlyRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/revenue-monthly?months=12: a row per month and plan that had revenue or refunds. */
export type RevenueMonthly = RouteAnswer<typeof revenueMonthlyRoute>;

export function getRevenueMonthly(months: number = monthlyChartMonths, hideTest = false): Promise<RevenueMonthly> {
  return api.get<RevenueMonthly>('/api/admin/analytics/revenue-monthly', {
    query: { months, ...testAccountsQuery(hideTest) },
  });
}

export function useRevenueMonthly(months: number = monthlyChartMonths) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'revenue-monthly', months, hide],
    queryFn: () => getRevenueMonthly(months, hide),
  });
}
