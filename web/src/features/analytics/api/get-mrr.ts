import type { mrrTotalsRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/mrr (spec §7 mrr_total_cents and arr_total_cents), with the paying customers. */
export type MrrTotals = RouteAnswer<typeof mrrTotalsRoute>;

export function getMrrTotals(hideTest = false): Promise<MrrTotals> {
  return api.get<MrrTotals>('/api/admin/analytics/mrr', { query: testAccountsQuery(hideTest) });
}

export function useMrrTotals() {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...analyticsKey, 'mrr', hide], queryFn: () => getMrrTotals(hide) });
}
