import type { adminServersRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/servers?exclude_test=: one entry per node with its latest metrics within 300 s. */
export type AdminServers = RouteAnswer<typeof adminServersRoute>;
export type AdminServer = AdminServers['servers'][number];
export type AdminServersQuery = RouteQuery<typeof adminServersRoute>;
export const serversKey = [...adminKey, 'servers'] as const;

export function getServers(query: AdminServersQuery = {}): Promise<AdminServers> {
  return api.get<AdminServers>('/api/admin/servers', { query });
}

/**
 * Metrics arrive every minute or so; the cards follow by themselves. While "Hide test accounts" is
 * on (issue #26), the test accounts' peers are counted apart (`peers_test`).
 */
export function useServers() {
  const query = testAccountsQuery(useHideTestAccounts());
  return useQuery({ queryKey: [...serversKey, query], queryFn: () => getServers(query), refetchInterval: 30_000 });
}
