import type { revenueWindowRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/revenue-window?days=N (spec §7 revenue_window): gross, refunds and net in cents. */
export type RevenueWindow = RouteAnswer<typeof revenueWindowRoute>;
export type RevenueWindowDays = RouteQuery<typeof revenueWindowRoute>['days'];

export function getRevenueWindow(days: RevenueWindowDays): Promise<RevenueWindow> {
  return api.get<RevenueWindow>('/api/admin/analytics/revenue-window', { query: { days } });
}

export function useRevenueWindow(days: RevenueWindowDays) {
  return useQuery({
    queryKey: [...analyticsKey, 'revenue-window', days],
    queryFn: () => getRevenueWindow(days),
    // Another window keeps the last figure on screen until its own arrives.
    placeholderData: keepPreviousData,
  });
}
