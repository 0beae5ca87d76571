import type { cancelsWindowRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/cancels-window?days=N (spec §7 cancels_window). */
export type CancelsWindow = RouteAnswer<typeof cancelsWindowRoute>;
export type CancelsWindowDays = RouteQuery<typeof cancelsWindowRoute>['days'];

export function getCancelsWindow(days: CancelsWindowDays): Promise<CancelsWindow> {
  return api.get<CancelsWindow>('/api/admin/analytics/cancels-window', { query: { days } });
}

export function useCancelsWindow(days: CancelsWindowDays) {
  return useQuery({
    queryKey: [...analyticsKey, 'cancels-window', days],
    queryFn: () => getCancelsWindow(days),
    placeholderData: keepPreviousData,
  });
}
