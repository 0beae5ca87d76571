import { cohortOffsets, type cohortRetentionRoute, type RouteAnswer } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../../admin/hide-test-accounts';
import { analyticsKey } from './analytics-key';

/** GET /api/admin/analytics/cohorts?months=12 (spec §3 cohort_retention_monthly): cohorts × months +0 to +11. */
export type CohortRetention = RouteAnswer<typeof cohortRetentionRoute>;

export function getCohorts(months: number = cohortOffsets, hideTest = false): Promise<CohortRetention> {
  return api.get<CohortRetention>('/api/admin/analytics/cohorts', {
    query: { months, ...testAccountsQuery(hideTest) },
  });
}

export function useCohorts(months: number = cohortOffsets) {
  const hide = useHideTestAccounts();
  return useQuery({ queryKey: [...analyticsKey, 'cohorts', months, hide], queryFn: () => getCohorts(months, hide) });
}
