import type { cancelsWindowRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/cancels-window?days=N (spec §7 cancels_window). */
export type CancelsWindow = RouteAnswer<typeof cancelsWindowRoute>;
export type CancelsWindowDays = RouteQuery<typeof cancelsWindowRoute>['days'];

export function getCancelsWindow(days: CancelsWindowDays, hideTest = false): Promise<CancelsWindow> {
  return api.get<CancelsWindow>('/api/admin/analytics/cancels-window', {
    query: { days, ...testAccountsQuery(hideTest) },
  });
}

export function useCancelsWindow(days: CancelsWindowDays) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'cancels-window', days, hide],
    queryFn: () => getCancelsWindow(days, hide),
    placeholderData: keepPreviousData,
  });
}
