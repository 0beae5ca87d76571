import { dailyChartDays, type RouteAnswer, type subscriptionsDailyRoute } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/subscriptions-daily?days=60 (spec §3 subscriptions_daily_last_730): new and cancelled. */
export type SubscriptionsDaily = RouteAnswer<typeof subscriptionsDailyRoute>;

export function getSubscriptionsDaily(days: number = dailyChartDays, hideTest = false): Promise<SubscriptionsDaily> {
  return api.get<SubscriptionsDaily>('/api/admin/analytics/subscriptions-daily', {
    query: { days, ...testAccountsQuery(hideTest) },
  });
}

export function useSubscriptionsDaily(days: number = dailyChartDays) {
  const hide = useHideTestAccounts();
  return useQuery({
    queryKey: [...analyticsKey, 'subscriptions-daily', days, hide],
    queryFn: () => getSubscriptionsDaily(days, hide),
  });
}
