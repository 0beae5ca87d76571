import type { adminDevicesRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/devices?q=&node=&org=&connected=&active=&sort=&dir=&page=&per_page=: one page of every device. */
export type AdminDevicesPage = RouteAnswer<typeof adminDevicesRoute>;
export type AdminDevicesQuery = RouteQuery<typeof adminDevicesRoute>;
export type AdminDevice = AdminDevicesPage['rows'][number];
export const adminDevicesKey = [...adminKey, 'devices'] as const;

export function getAdminDevices(query: AdminDevicesQuery): Promise<AdminDevicesPage> {
  return api.get<AdminDevicesPage>('/api/admin/devices', { query });
}

/**
 * Connected comes from telemetry: the page asks again every 30 s by itself. Without test accounts'
 * devices while "Hide test accounts" is on (issue #26).
 */
export function useAdminDevices(base: AdminDevicesQuery) {
  const query = { ...base, ...testAccountsQuery(useHideTestAccounts()) };
  return useQuery({
    queryKey: [...adminDevicesKey, query],
    queryFn: () => getAdminDevices(query),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}
