import type { adminOverviewRoute, RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/overview: the four counts and the last 24 hours of traffic, hour by hour. */
export type AdminOverview = RouteAnswer<typeof adminOverviewRoute>;
export const overviewKey = [...adminKey, 'overview'] as const;

export function getOverview(hideTestAccounts = false): Promise<AdminOverview> {
  return api.get<AdminOverview>('/api/admin/overview', { query: testAccountsQuery(hideTestAccounts) });
}

/** Without test accounts while "Hide test accounts" is on (issue #26). */
export function useOverview() {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...overviewKey, { hide }], queryFn: () => getOverview(hide), refetchInterval: 60_000 });
}
