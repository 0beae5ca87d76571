import type { adminOrganizationsRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/organizations?q=&status=&sort=&dir=&page=&per_page=: one page of organizations. */
export type AdminOrganizationsPage = RouteAnswer<typeof adminOrganizationsRoute>;
export type AdminOrganizationsQuery = RouteQuery<typeof adminOrganizationsRoute>;
export type AdminOrganization = AdminOrganizationsPage['rows'][number];
export const organizationsKey = [...adminKey, 'organizations'] as const;

export function getOrganizations(query: AdminOrganizationsQuery): Promise<AdminOrganizationsPage> {
  return api.get<AdminOrganizationsPage>('/api/admin/organizations', { query });
}

export function useOrganizations(query: AdminOrganizationsQuery) {
  return useQuery({
    queryKey: [...organizationsKey, query],
    queryFn: () => getOrganizations(query),
    placeholderData: keepPreviousData,
  });
}
