import type { revenueWindowRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/revenue-window?days=N (spec §7 revenue_window): gross, refunds and net in cents. */
export type RevenueWindow = RouteAnswer<typeof revenueWindowRoute>;
export type RevenueWindowDays = RouteQuery<typeof revenueWindowRoute>['days'];

export function getRevenueWindow(days: RevenueWindowDays, hideTest = false): Promise<RevenueWindow> {
  return api.get<RevenueWindow>('/api/admin/analytics/revenue-window', {
    query: { days, ...testAccountsQuery(hideTest) },
  });
}

export function useRevenueWindow(days: RevenueWindowDays) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'revenue-window', days, hide],
    queryFn: () => getRevenueWindow(days, hide),
    // Another window keeps the last figure on screen until its own arrives.
    placeholderData: keepPreviousData,
  });
}
