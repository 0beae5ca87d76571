import type { adminOrganizationsRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/organizations?q=&status=&sort=&dir=&page=&per_page=: one page of organizations. */
export type AdminOrganizationsPage = RouteAnswer<typeof adminOrganizationsRoute>;
export type AdminOrganizationsQuery = RouteQuery<typeof adminOrganizationsRoute>;
export type AdminOrganization = AdminOrganizationsPage['rows'][number];
export const organizationsKey = [...adminKey, 'organizations'] as const;

export function getOrganizations(query: AdminOrganizationsQuery): Promise<AdminOrganizationsPage> {
  return api.get<AdminOrganizationsPage>('/api/admin/organizations', { query });
}

/** Without test organizations (every member a test account) while "Hide test accounts" is on (issue #26). */
export function useOrganizations(base: AdminOrganizationsQuery) {
  const query = { ...base, ...testAccountsQuery(useHideTestAccounts()) };
  return useQuery({
    queryKey: [...organizationsKey, query],
    queryFn: () => getOrganizations(query),
    placeholderData: keepPreviousData,
  });
}
