import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely } from 'kysely';
import type { AdminAuditKind, AuditCursor } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { containsPattern } from './admin-rules.ts';
import { isTestOrganization } from './directory.repository.ts';

/** A person's columns as the console lists them (users `u`, profiles `p`, admin_emails `a`): `ListedPerson` and more. */
export const listedPersonColumns = [
  'u.id',
  'u.email',
  'u.email_verified_at',
  'u.created_at',
  'u.is_test',
  'p.full_name',
  'p.account_type',
  'p.role',
  'a.is_admin as list_is_admin',
  'a.role as list_role',
] as const;

type Db = Kysely<IdentityDatabase>;
type Sort = 'asc' | 'desc';
type Window = { limit: number; offset: number };

/** The operator console's accounts: queries only (the service checks the operator and decides). */
export async function insertAdminAudit(
  db: Db,
  operator: { id: string; email: string },
  entry: { kind: AdminAuditKind; target: string; details?: Record<string, unknown> },
): Promise<void> {
  await db
    .insertInto('admin_audit')
    .values({
      id: uuidv7(),
      kind: entry.kind,
      actor_id: operator.id,
      actor_email: operator.email,
      target: entry.target,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

/** People matching `search` (e-mail or name) with the total, one page in the given order. */
export async function pageUsers(
  db: Db,
  query: {
    search?: string | undefined;
    excludeTest?: boolean | undefined;
    column: 'email' | 'full_name' | 'created_at';
    dir: Sort;
  } & Window,
) {
  let base = db.selectFrom('users as u').innerJoin('profiles as p', 'p.id', 'u.id');
  if (query.excludeTest) base = base.where('u.is_test', '=', false);
  if (query.search) {
    const pattern = containsPattern(query.search);
    base = base.where((eb) => eb.or([eb('u.email', 'ilike', pattern), eb('p.full_name', 'ilike', pattern)]));
  }
  const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow();
  const { dir } = query;
  const rows = await base
    .leftJoin('admin_emails as a', 'a.email', 'u.email')
    .select(listedPersonColumns)
    .select((eb) =>
      eb
        .selectFrom('org_members as m')
        .whereRef('m.user_id', '=', 'u.id')
        .select(sql<number>`count(*)::int`.as('n'))
        .as('organizations'),
    )
    // Names may be missing: last either way. E-mail and created_at are never null, so their plain
    // order walks their indexes (users_email_key, users_created_page) in either direction.
    .orderBy(
      query.column === 'full_name'
        ? sql`p.full_name ${sql.raw(dir)} nulls last`
        : sql`${sql.ref(`u.${query.column}`)} ${sql.raw(dir)}`,
    )
    .orderBy('u.id', dir)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { total: Number(total), rows };
}

const organizationColumns = [
  'o.id',
  'o.name',
  'o.plan',
  'o.is_active',
  'o.suspended_by_operator',
  'o.suspension_reason',
  'o.created_at',
] as const;

/** Organizations matching `search` (name) and `active`, with the total, one page in the given order. */
export async function pageOrganizations(
  db: Db,
  query: {
    search?: string | undefined;
    active?: boolean | undefined;
    excludeTest?: boolean | undefined;
    column: 'name' | 'members' | 'created_at';
    dir: Sort;
  } & Window,
) {
  let base = db.selectFrom('organizations as o');
  if (query.search) base = base.where('o.name', 'ilike', containsPattern(query.search));
  if (query.active !== undefined) base = base.where('o.is_active', '=', query.active);
  if (query.excludeTest) base = base.where((eb) => eb.not(isTestOrganization(eb)));
  const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow();
  const order = query.column === 'members' ? sql.ref('members') : sql.ref(`o.${query.column}`);
  const rows = await base
    .select(organizationColumns)
    .select((eb) =>
      eb
        .selectFrom('org_members as m')
        .whereRef('m.org_id', '=', 'o.id')
        .select(sql<number>`count(*)::int`.as('n'))
        .as('members'),
    )
    .orderBy(sql`${order} ${sql.raw(query.dir)}`)
    .orderBy('o.id', query.dir)
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { total: Number(total), rows };
}

export function findAdminOrganization(db: Db, orgId: string) {
  return db
    .selectFrom('organizations as o')
    .select(organizationColumns)
    .select((eb) =>
      eb
        .selectFrom('org_members as m')
        .whereRef('m.org_id', '=', 'o.id')
        .select(sql<number>`count(*)::int`.as('members'))
        .as('members'),
    )
    .where('o.id', '=', orgId)
    .executeTakeFirst();
}

export function findOrganizationForUpdate(db: Db, orgId: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).forUpdate().executeTakeFirst();
}

export async function setSuspendedByOperator(
  db: Db,
  orgId: string,
  suspended: boolean,
  reason: string | null,
): Promise<void> {
  await db
    .updateTable('organizations')
    .set({ suspended_by_operator: suspended, suspension_reason: suspended ? reason : null })
    .where('id', '=', orgId)
    .execute();
}

/** The admin list by address; `forUpdate` locks it whole (two operators removing each other). */
export function listAdminEmails(db: Db, options: { forUpdate?: boolean } = {}) {
  const query = db.selectFrom('admin_emails').selectAll().orderBy('email');
  return (options.forUpdate ? query.forUpdate() : query).execute();
}

export function findAdminEmailForUpdate(db: Db, email: string) {
  return db.selectFrom('admin_emails').selectAll().where('email', '=', email).forUpdate().executeTakeFirst();
}

/** The address on the list as an operator's, granting admin (an existing row of it is taken over). */
export function upsertOperatorAdminEmail(db: Db, email: string, operatorId: string) {
  return db
    .insertInto('admin_emails')
    .values({ email, is_admin: true, role: 'admin', source: 'operator', added_by: operatorId })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        is_admin: true,
        role: 'admin',
        source: 'operator',
        added_by: operatorId,
        added_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAdminEmail(db: Db, email: string): Promise<void> {
  await db.deleteFrom('admin_emails').where('email', '=', email).execute();
}

/**
 * The operators' own changes, newest first: by time to the millisecond, then id (the order the
 * console's merged audit uses, so its `before` cursor never skips or repeats an entry).
 */
export async function pageAdminAudit(db: Db, query: { before?: AuditCursor | undefined } & Window) {
  const { total } = await db
    .selectFrom('admin_audit')
    .select(sql<number>`count(*)::int`.as('total'))
    .executeTakeFirstOrThrow();
  const before = query.before;
  const rows = await db
    .selectFrom('admin_audit')
    .selectAll()
    .$if(before !== undefined, (q) =>
      q.where(sql<boolean>`(date_trunc('milliseconds', at), id) < (${before?.at}::timestamptz, ${before?.id}::uuid)`),
    )
    .orderBy(sql`date_trunc('milliseconds', at)`, 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { total: Number(total), rows };
}
