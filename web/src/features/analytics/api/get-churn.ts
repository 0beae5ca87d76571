import { type churnMonthlyRoute, monthlyChartMonths, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/churn?months=12 (spec §3 churn_monthly_last_12m): logo and revenue churn per month. */
export type ChurnMonthly = RouteAnswer<typeof churnMonthlyRoute>;

export function getChurn(months: number = monthlyChartMonths): Promise<ChurnMonthly> {
  return api.get<ChurnMonthly>('/api/admin/analytics/churn', { query: { months } });
}

export function useChurn(months: number = monthlyChartMonths) {
  return useQuery({ queryKey: [...analyticsKey, 'churn', months], queryFn: () => getChurn(months) });
}
