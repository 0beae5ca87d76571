import { type churnMonthlyRoute, monthlyChartMonths, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/churn?months=12 (spec §3 churn_monthly_last_12m): logo and revenue churn per month. */
export type ChurnMonthly = RouteAnswer<typeof churnMonthlyRoute>;

export function getChurn(months: number = monthlyChartMonths, hideTest = false): Promise<ChurnMonthly> {
  return api.get<ChurnMonthly>('/api/admin/analytics/churn', { query: { months, ...testAccountsQuery(hideTest) } });
}

export function useChurn(months: number = monthlyChartMonths) {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...analyticsKey, 'churn', months, hide], queryFn: () => getChurn(months, hide) });
}
