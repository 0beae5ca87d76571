import {
  adminDirectoryRpc,
  adminFindUsersRpc,
  adminPeopleCountsRpc,
  adminTestUserIdsRpc,
  requireAdmin,
  testAccountsMax,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import {
  countPeople,
  findDirectoryEntries,
  findTestOrganizationIds,
  findTestUserIds,
  findUserIdsByEmail,
} from '../admin/directory.repository.ts';

/**
 * The operator console's questions about people (platform admins only, checked here again):
 * the overview's counts, owners' addresses and organizations' names by id, and who matches a search.
 */
export function directoryEndpoints(db: Kysely<IdentityDatabase>): RpcEndpoint[] {
  const distinct = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];
  return [
    endpoint(adminPeopleCountsRpc, async (data, caller) => {
      requireAdmin(caller);
      return countPeople(db, data.exclude_test === true);
    }),
    endpoint(adminTestUserIdsRpc, async (_data, caller) => {
      requireAdmin(caller);
      const [ids, orgIds] = await Promise.all([
        findTestUserIds(db, testAccountsMax),
        findTestOrganizationIds(db, testAccountsMax),
      ]);
      return {
        user_ids: ids.slice(0, testAccountsMax),
        org_ids: orgIds.slice(0, testAccountsMax),
        truncated: ids.length > testAccountsMax || orgIds.length > testAccountsMax,
      };
    }),
    endpoint(adminDirectoryRpc, async (data, caller) => {
      requireAdmin(caller);
      return findDirectoryEntries(db, distinct(data.user_ids), distinct(data.org_ids));
    }),
    endpoint(adminFindUsersRpc, async (data, caller) => {
      requireAdmin(caller);
      const ids = await findUserIdsByEmail(db, data.q, data.limit);
      return { user_ids: ids.slice(0, data.limit), truncated: ids.length > data.limit };
    }),
  ];
}
