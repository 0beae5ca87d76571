import { monthlyChartMonths, type mrrMovementsRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/mrr-movements?months=12: new, expansion, contraction, churn, reactivation, net, MRR. */
export type MrrMovements = RouteAnswer<typeof mrrMovementsRoute>;

export function getMrrMovements(months: number = monthlyChartMonths, hideTest = false): Promise<MrrMovements> {
  return api.get<MrrMovements>('/api/admin/analytics/mrr-movements', {
    query: { months, ...testAccountsQuery(hideTest) },
  });
}

export function useMrrMovements(months: number = monthlyChartMonths) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'mrr-movements', months, hide],
    queryFn: () => getMrrMovements(months, hide),
  });
}
