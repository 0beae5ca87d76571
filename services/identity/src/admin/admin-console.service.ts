import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely } from 'kysely';
import {
  AppError,
  isEmailAddress,
  normalizeEmail,
  organizationStatus,
  requireAdmin,
  resolveAccess,
  type AdminAuditEntry,
  type AdminAuditKind,
  type AuditCursor,
  type AdminEmail,
  type AdminOrganization,
  type AdminUserRow,
  type Caller,
} from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import * as accounts from '../accounts/accounts.repository.ts';
import { organizationNotFound } from '../organizations/organization-rules.ts';
import { reconcileStanding } from '../organizations/organizations.service.ts';
import { adminRemovalRefusal, containsPattern, grantsAdmin, pageOf } from './admin-rules.ts';

type Db = Kysely<IdentityDatabase>;
type Page<T> = { rows: T[]; total: number; page: number; per_page: number };
type Sort = 'asc' | 'desc';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notAdmin = () => new AppError('forbidden', 'This is for platform administrators only.');

/** The acting admin, as the database says now. */
type Operator = { id: string; email: string };

/**
 * The operator console's accounts (spec §2 Admin area: Accounts): people, organizations with their
 * operator suspension, the admin list and the operators' own audit. Every call checks the caller
 * assertion's admin flag and then, at the time of the request, that the admin list still names
 * the caller's verified address: an address taken off the list loses the console at once.
 */
export class AdminConsoleService {
  constructor(private readonly db: Db) {}

  /** The caller's admin rights, from the assertion and then the database (inside `db`'s transaction if any). */
  private async operator(db: Db, caller: Caller): Promise<Operator> {
    const userId = requireAdmin(caller);
    const user = await accounts.findUserById(db, userId);
    const profile = await accounts.findProfile(db, userId);
    if (!user || !profile) throw notAdmin();
    const access = resolveAccess({
      profileRole: profile.role,
      accountType: profile.account_type,
      adminEntry: await accounts.findAdminEntry(db, user.email),
      emailVerified: user.email_verified_at !== null,
      twoFactorEnabled: await accounts.isTwoFactorEnabled(db, userId),
      // The access token said admin, which it says only after the second factor when that is on.
      twoFactorPassed: true,
    });
    if (!access.isAdmin) throw notAdmin();
    return { id: user.id, email: user.email };
  }

  private async audit(
    db: Db,
    operator: Operator,
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

  /** Spec §2 Accounts, users: searched on e-mail and name, sorted, a page at a time with the total. */
  async users(
    caller: Caller,
    query: { q?: string | undefined; sort?: string | undefined; dir?: Sort | undefined } & PageQuery,
  ): Promise<Page<AdminUserRow>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const search = query.q?.trim();
    let base = this.db.selectFrom('users as u').innerJoin('profiles as p', 'p.id', 'u.id');
    if (search) {
      const pattern = containsPattern(search);
      base = base.where((eb) => eb.or([eb('u.email', 'ilike', pattern), eb('p.full_name', 'ilike', pattern)]));
    }
    const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow();
    const dir = query.dir ?? (query.sort === 'created_at' || !query.sort ? 'desc' : 'asc');
    const column = query.sort === 'email' ? 'u.email' : query.sort === 'full_name' ? 'p.full_name' : 'u.created_at';
    const rows = await base
      .leftJoin('admin_emails as a', 'a.email', 'u.email')
      .select([
        'u.id',
        'u.email',
        'u.email_verified_at',
        'u.created_at',
        'p.full_name',
        'p.account_type',
        'p.role',
        'a.is_admin as list_is_admin',
        'a.role as list_role',
      ])
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
        column === 'p.full_name'
          ? sql`p.full_name ${sql.raw(dir)} nulls last`
          : sql`${sql.ref(column)} ${sql.raw(dir)}`,
      )
      .orderBy('u.id', dir)
      .limit(perPage)
      .offset(offset)
      .execute();
    return {
      rows: rows.map((row) => {
        const access = resolveAccess({
          profileRole: row.role,
          accountType: row.account_type,
          adminEntry: row.list_is_admin === null ? null : { is_admin: row.list_is_admin, role: row.list_role ?? null },
          emailVerified: row.email_verified_at !== null,
          twoFactorEnabled: false,
          twoFactorPassed: false,
        });
        return {
          id: row.id,
          email: row.email,
          full_name: row.full_name,
          account_type: row.account_type,
          role: access.role,
          is_admin: access.isAdmin,
          email_verified: row.email_verified_at !== null,
          organizations: Number(row.organizations ?? 0),
          created_at: new Date(row.created_at).toISOString(),
        };
      }),
      total: Number(total),
      page,
      per_page: perPage,
    };
  }

  /** Spec §2 Accounts, organizations: name, plan, members, Active or Suspended; searched, sorted, paged. */
  async organizations(
    caller: Caller,
    query: {
      q?: string | undefined;
      status?: 'Active' | 'Suspended' | undefined;
      sort?: string | undefined;
      dir?: Sort | undefined;
    } & PageQuery,
  ): Promise<Page<AdminOrganization>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const search = query.q?.trim();
    let base = this.db.selectFrom('organizations as o');
    if (search) base = base.where('o.name', 'ilike', containsPattern(search));
    if (query.status) base = base.where('o.is_active', '=', query.status === 'Active');
    const { total } = await base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow();
    const dir = query.dir ?? (query.sort === 'name' ? 'asc' : 'desc');
    const order =
      query.sort === 'name'
        ? sql.ref('o.name')
        : query.sort === 'members'
          ? sql.ref('members')
          : sql.ref('o.created_at');
    const rows = await base
      .select(['o.id', 'o.name', 'o.plan', 'o.is_active', 'o.suspended_by_operator', 'o.created_at'])
      .select((eb) =>
        eb
          .selectFrom('org_members as m')
          .whereRef('m.org_id', '=', 'o.id')
          .select(sql<number>`count(*)::int`.as('n'))
          .as('members'),
      )
      .orderBy(sql`${order} ${sql.raw(dir)}`)
      .orderBy('o.id', dir)
      .limit(perPage)
      .offset(offset)
      .execute();
    return { rows: rows.map(organizationRow), total: Number(total), page, per_page: perPage };
  }

  private async organization(db: Db, orgId: string): Promise<AdminOrganization> {
    const row = await db
      .selectFrom('organizations as o')
      .select(['o.id', 'o.name', 'o.plan', 'o.is_active', 'o.suspended_by_operator', 'o.created_at'])
      .select((eb) =>
        eb
          .selectFrom('org_members as m')
          .whereRef('m.org_id', '=', 'o.id')
          .select(sql<number>`count(*)::int`.as('members'))
          .as('members'),
      )
      .where('o.id', '=', orgId)
      .executeTakeFirst();
    if (!row) throw organizationNotFound();
    return organizationRow(row);
  }

  /**
   * An operator suspends an organization whatever its plan, or lifts that. Its standing is decided
   * again the way billing's events decide it, so a change goes out as `identity.org.status-changed`
   * and provisioning stops (or brings back) its devices exactly as for a plan that ended.
   */
  async setOperatorSuspension(caller: Caller, orgId: string, suspended: boolean): Promise<AdminOrganization> {
    if (!uuidPattern.test(orgId)) {
      await this.operator(this.db, caller);
      throw organizationNotFound();
    }
    return this.db.transaction().execute(async (tx) => {
      const operator = await this.operator(tx, caller);
      const org = await tx
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', orgId)
        .forUpdate()
        .executeTakeFirst();
      if (!org) throw organizationNotFound();
      if (org.suspended_by_operator === suspended)
        throw new AppError(
          'conflict',
          suspended
            ? 'This organization is already suspended by an operator.'
            : 'This organization is not suspended by an operator.',
        );
      await tx.updateTable('organizations').set({ suspended_by_operator: suspended }).where('id', '=', orgId).execute();
      await reconcileStanding(tx, orgId, new Date(), 'operator');
      const after = await this.organization(tx, orgId);
      await this.audit(tx, operator, {
        kind: suspended ? 'organization.suspended' : 'organization.reactivated',
        target: org.name,
        details: { org_id: orgId, status: after.status, plan: after.plan },
      });
      return after;
    });
  }

  /** Spec §3 admin_emails: the addresses that grant admin. */
  async adminEmails(caller: Caller): Promise<{ emails: AdminEmail[] }> {
    await this.operator(this.db, caller);
    const rows = await this.db.selectFrom('admin_emails').selectAll().orderBy('email').execute();
    return { emails: rows.filter(grantsAdmin).map(adminEmailRow) };
  }

  /** An operator adds an address: its person is admin from their next sign-in or refresh, once verified. */
  async addAdminEmail(caller: Caller, raw: string): Promise<AdminEmail> {
    const email = normalizeEmail(raw);
    if (!isEmailAddress(email))
      throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
    return this.db.transaction().execute(async (tx) => {
      const operator = await this.operator(tx, caller);
      const existing = await tx
        .selectFrom('admin_emails')
        .selectAll()
        .where('email', '=', email)
        .forUpdate()
        .executeTakeFirst();
      if (existing && grantsAdmin(existing))
        throw new AppError('already_exists', 'This address is already on the admin list.');
      const row = await tx
        .insertInto('admin_emails')
        .values({ email, is_admin: true, role: 'admin', source: 'operator', added_by: operator.id })
        .onConflict((oc) =>
          oc.column('email').doUpdateSet({
            is_admin: true,
            role: 'admin',
            source: 'operator',
            added_by: operator.id,
            added_at: sql<Date>`now()`,
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.audit(tx, operator, { kind: 'admin_email.added', target: email });
      return adminEmailRow(row);
    });
  }

  /**
   * An operator takes an address off the list (never their own, never one from ADMIN_EMAILS, never
   * the last), and every session of its person ends. The list is locked first, so two operators
   * removing each other at once cannot both succeed: the second finds itself no longer an admin.
   */
  async removeAdminEmail(caller: Caller, raw: string): Promise<void> {
    const email = normalizeEmail(raw);
    await this.db.transaction().execute(async (tx) => {
      const list = await tx.selectFrom('admin_emails').selectAll().orderBy('email').forUpdate().execute();
      const operator = await this.operator(tx, caller);
      const refusal = adminRemovalRefusal(list, email, operator.email);
      if (refusal) throw refusal;
      await tx.deleteFrom('admin_emails').where('email', '=', email).execute();
      // Every session began as an admin's: its refresh token would mint another admin claim. The
      // access tokens still live lose the console through the gateway's authority check.
      const removed = await accounts.findUserByEmail(tx, email);
      if (removed) await accounts.revokeAllSessions(tx, removed.id);
      await this.audit(tx, operator, { kind: 'admin_email.removed', target: email });
    });
  }

  /**
   * The operators' own changes, newest first: by time to the millisecond, then id (the order the
   * console's merged audit uses, so its `before` cursor never skips or repeats an entry).
   */
  async auditLog(
    caller: Caller,
    query: PageQuery & { before?: AuditCursor | undefined },
  ): Promise<Page<AdminAuditEntry>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const { total } = await this.db
      .selectFrom('admin_audit')
      .select(sql<number>`count(*)::int`.as('total'))
      .executeTakeFirstOrThrow();
    const before = query.before;
    const rows = await this.db
      .selectFrom('admin_audit')
      .selectAll()
      .$if(before !== undefined, (q) =>
        q.where(sql<boolean>`(date_trunc('milliseconds', at), id) < (${before?.at}::timestamptz, ${before?.id}::uuid)`),
      )
      .orderBy(sql`date_trunc('milliseconds', at)`, 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset(offset)
      .execute();
    return {
      rows: rows.map((row) => ({
        id: row.id,
        at: new Date(row.at).toISOString(),
        actor_id: row.actor_id,
        actor_email: row.actor_email,
        kind: row.kind,
        target: row.target,
        details: row.details,
      })),
      total: Number(total),
      page,
      per_page: perPage,
    };
  }
}

type PageQuery = { page?: number | undefined; per_page?: number | undefined };

function organizationRow(row: {
  id: string;
  name: string;
  plan: string;
  is_active: boolean;
  suspended_by_operator: boolean;
  created_at: Date | string;
  members: number | null;
}): AdminOrganization {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    members: Number(row.members ?? 0),
    status: organizationStatus(row.is_active),
    suspended_by_operator: row.suspended_by_operator,
    created_at: new Date(row.created_at).toISOString(),
  };
}

function adminEmailRow(row: {
  email: string;
  is_admin: boolean;
  role: string | null;
  source: string;
  added_at: Date | string;
}): AdminEmail {
  return {
    email: row.email,
    is_admin: row.is_admin,
    role: row.role,
    from_config: row.source === 'environment',
    added_at: new Date(row.added_at).toISOString(),
  };
}
