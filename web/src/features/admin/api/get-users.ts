import type { adminUsersRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { adminKey } from './admin-key';

/** GET /api/admin/users?q=&sort=&dir=&page=&per_page=: one page of people. */
export type AdminUsersPage = RouteAnswer<typeof adminUsersRoute>;
export type AdminUsersQuery = RouteQuery<typeof adminUsersRoute>;
export const usersKey = [...adminKey, 'users'] as const;

export function getUsers(query: AdminUsersQuery): Promise<AdminUsersPage> {
  return api.get<AdminUsersPage>('/api/admin/users', { query });
}

export function useUsers(query: AdminUsersQuery) {
  return useQuery({
    queryKey: [...usersKey, query],
    queryFn: () => getUsers(query),
    placeholderData: keepPreviousData,
  });
}
