import type { newSubscriptionsWindowRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/new-subscriptions-window?days=N (spec §7 new_subscriptions_window). */
export type NewSubscriptionsWindow = RouteAnswer<typeof newSubscriptionsWindowRoute>;
export type NewSubscriptionsWindowDays = RouteQuery<typeof newSubscriptionsWindowRoute>['days'];

export function getNewSubscriptionsWindow(
  days: NewSubscriptionsWindowDays,
  hideTest = false,
): Promise<NewSubscriptionsWindow> {
  return api.get<NewSubscriptionsWindow>('/api/admin/analytics/new-subscriptions-window', {
    query: { days, ...testAccountsQuery(hideTest) },
  });
}

export function useNewSubscriptionsWindow(days: NewSubscriptionsWindowDays) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'new-subscriptions-window', days, hide],
    queryFn: () => getNewSubscriptionsWindow(days, hide),
    placeholderData: keepPreviousData,
  });
}
