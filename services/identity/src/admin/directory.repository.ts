import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';

type OrganizationsRow = IdentityDatabase['organizations'];
import { containsPattern } from './admin-rules.ts';

type Db = Kysely<IdentityDatabase>;

/**
 * A test organization (issue #26): it has members and every one of them is a test account. Takes
 * the organization as `o`.
 */
export function isTestOrganization(eb: ExpressionBuilder<IdentityDatabase & { o: OrganizationsRow }, 'o'>) {
  return eb.and([
    eb.exists(eb.selectFrom('org_members as m').select('m.user_id').whereRef('m.org_id', '=', 'o.id')),
    eb.not(
      eb.exists(
        eb
          .selectFrom('org_members as m')
          .innerJoin('users as u', 'u.id', 'm.user_id')
          .select('m.user_id')
          .whereRef('m.org_id', '=', 'o.id')
          .where('u.is_test', '=', false),
      ),
    ),
  ]);
}

/** The operator console's questions about people: queries only (the endpoints check the caller). */
export async function countPeople(db: Db, excludeTest = false): Promise<{ users: number; organizations: number }> {
  let users = db.selectFrom('users').select((eb) => eb.fn.countAll<string>().as('n'));
  if (excludeTest) users = users.where('is_test', '=', false);
  let orgs = db.selectFrom('organizations as o').select((eb) => eb.fn.countAll<string>().as('n'));
  if (excludeTest) orgs = orgs.where((eb) => eb.not(isTestOrganization(eb)));
  const [userCount, organizations] = await Promise.all([
    users.executeTakeFirstOrThrow(),
    orgs.executeTakeFirstOrThrow(),
  ]);
  return { users: Number(userCount.n), organizations: Number(organizations.n) };
}

/** The ids of test accounts (issue #26), at most `limit + 1` to tell truncation. */
export async function findTestUserIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('is_test', '=', true)
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The ids of test organizations (members all test accounts), at most `limit + 1`. Only
 * organizations with a test member are looked at (the partial index holds the few test accounts).
 */
export async function findTestOrganizationIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('organizations as o')
    .select('o.id')
    .where((eb) =>
      eb(
        'o.id',
        'in',
        eb
          .selectFrom('org_members as tm')
          .innerJoin('users as tu', 'tu.id', 'tm.user_id')
          .select('tm.org_id')
          .where('tu.is_test', '=', true),
      ),
    )
    .where((eb) => isTestOrganization(eb))
    .orderBy('o.id')
    .limit(limit + 1)
    .execute();
  return rows.map((row) => row.id);
}

/** People's addresses and names, and organizations' names, by id (unknown ids are left out). */
export async function findDirectoryEntries(db: Db, userIds: readonly string[], orgIds: readonly string[]) {
  if (userIds.length === 0 && orgIds.length === 0) return { users: [], organizations: [] };
  // One round trip for both (the console's device list asks this on every page).
  const { rows } = await sql<{
    users: Array<{ id: string; email: string; full_name: string | null }>;
    organizations: Array<{ id: string; name: string }>;
  }>`
    select coalesce((select json_agg(json_build_object('id', u.id, 'email', u.email, 'full_name', p.full_name))
                       from users u left join profiles p on p.id = u.id
                      where u.id = any(${[...userIds]}::uuid[])), '[]') as users,
           coalesce((select json_agg(json_build_object('id', o.id, 'name', o.name))
                       from organizations o
                      where o.id = any(${[...orgIds]}::uuid[])), '[]') as organizations`.execute(db);
  return rows[0]!;
}

/** Ids of people whose address contains `q` (its % and _ literal), one more than `limit` to tell truncation. */
export async function findUserIdsByEmail(db: Db, q: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where(sql<boolean>`email ilike ${containsPattern(q.toLowerCase())}`)
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return rows.map((row) => row.id);
}
