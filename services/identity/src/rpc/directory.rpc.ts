import { adminDirectoryRpc, adminFindUsersRpc, adminPeopleCountsRpc, requireAdmin } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';

/** `%`, `_` and `\` in a search are literal characters, not patterns. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The operator console's questions about people (platform admins only, checked here again):
 * the overview's counts, owners' addresses and organizations' names by id, and who matches a search.
 */
export function directoryEndpoints(db: Kysely<IdentityDatabase>): RpcEndpoint[] {
  return [
    endpoint(adminPeopleCountsRpc, async (_data, caller) => {
      requireAdmin(caller);
      const [users, organizations] = await Promise.all([
        db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('organizations')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { users: Number(users.n), organizations: Number(organizations.n) };
    }),
    endpoint(adminDirectoryRpc, async (data, caller) => {
      requireAdmin(caller);
      const userIds = [...new Set(data.user_ids.map((id) => id.toLowerCase()))];
      const orgIds = [...new Set(data.org_ids.map((id) => id.toLowerCase()))];
      const [users, organizations] = await Promise.all([
        userIds.length === 0
          ? []
          : db
              .selectFrom('users')
              .leftJoin('profiles', 'profiles.id', 'users.id')
              .select(['users.id', 'users.email', 'profiles.full_name'])
              .where('users.id', 'in', userIds)
              .execute(),
        orgIds.length === 0
          ? []
          : db.selectFrom('organizations').select(['id', 'name']).where('id', 'in', orgIds).execute(),
      ]);
      return {
        users: users.map((u) => ({ id: u.id, email: u.email, full_name: u.full_name ?? null })),
        organizations,
      };
    }),
    endpoint(adminFindUsersRpc, async (data, caller) => {
      requireAdmin(caller);
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where(sql<boolean>`email ilike ${likePattern(data.q.toLowerCase())}`)
        .orderBy('id')
        .limit(data.limit + 1)
        .execute();
      return { user_ids: rows.slice(0, data.limit).map((r) => r.id), truncated: rows.length > data.limit };
    }),
  ];
}
