import { monthlyChartMonths, type mrrMovementsRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/mrr-movements?months=12: new, expansion, contraction, churn, reactivation, net, MRR. */
export type MrrMovements = RouteAnswer<typeof mrrMovementsRoute>;

export function getMrrMovements(months: number = monthlyChartMonths): Promise<MrrMovements> {
  return api.get<MrrMovements>('/api/admin/analytics/mrr-movements', { query: { months } });
}

export function useMrrMovements(months: number = monthlyChartMonths) {
  return useQuery({ queryKey: [...analyticsKey, 'mrr-movements', months], queryFn: () => getMrrMovements(months) });
}
