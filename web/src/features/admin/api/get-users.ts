import type { adminUsersRoute, RouteAnswer, RouteQuery } from '@qw/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { testAccountsQuery, useHideTestAccounts } from '../hide-test-accounts';
import { adminKey } from './admin-key';

/** GET /api/admin/users?q=&sort=&dir=&page=&per_page=: one page of people. */
export type AdminUsersPage = RouteAnswer<typeof adminUsersRoute>;
export type AdminUsersQuery = RouteQuery<typeof adminUsersRoute>;
export const usersKey = [...adminKey, 'users'] as const;

export function getUsers(query: AdminUsersQuery): Promise<AdminUsersPage> {
  return api.get<AdminUsersPage>('/api/admin/users', { query });
}

/** Without test accounts while "Hide test accounts" is on (issue #26). */
export function useUsers(base: AdminUsersQuery) {
  const query = { ...base, ...testAccountsQuery(useHideTestAccounts()) };
  return useQuery({
    queryKey: [...usersKey, query],
    queryFn: () => getUsers(query),
    placeholderData: keepPreviousData,
  });
}
