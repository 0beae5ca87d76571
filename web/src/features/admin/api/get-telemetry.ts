import type { adminTelemetryRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/telemetry?node=&connected=&exclude_test=&sort=&dir=&page=&per_page=: the latest row per device and a summary per node. */
export type AdminTelemetryPage = RouteAnswer<typeof adminTelemetryRoute>;
export type AdminTelemetryQuery = RouteQuery<typeof adminTelemetryRoute>;
export type AdminTelemetryRow = AdminTelemetryPage['rows'][number];
export type AdminNodeSummary = AdminTelemetryPage['nodes'][number];
export const telemetryKey = [...adminKey, 'telemetry'] as const;

export function getTelemetry(query: AdminTelemetryQuery): Promise<AdminTelemetryPage> {
  return api.get<AdminTelemetryPage>('/api/admin/telemetry', { query });
}

/** Without test accounts' devices while "Hide test accounts" is on (issue #26). */
export function useTelemetry(base: AdminTelemetryQuery) {
  const query = { ...base, ...testAccountsQuery(useHideTestAccounts()) };
  return useQuery({
    queryKey: [...telemetryKey, query],
    queryFn: () => getTelemetry(query),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}
