import type { Kysely } from 'kysely';
import {
  AppError,
  isEmailAddress,
  normalizeEmail,
  organizationStatus,
  requireAdmin,
  type AdminAuditEntry,
  type AdminAuditKind,
  type AuditCursor,
  type AdminEmail,
  type AdminOrganization,
  type AdminUserRow,
  type Caller,
  isUuid,
} from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import * as accounts from '../accounts/accounts.repository.ts';
import { readAccess } from '../accounts/read-authority.ts';
import { listedAccess } from './listed-access.ts';
import { organizationNotFound } from '../organizations/organization-rules.ts';
import { reconcileStanding } from '../organizations/organizations.service.ts';
import * as repo from './admin-console.repository.ts';
import { adminRemovalRefusal, grantsAdmin, organizationListOrder, pageOf, userListOrder } from './admin-rules.ts';

type Db = Kysely<IdentityDatabase>;
type Page<T> = { rows: T[]; total: number; page: number; per_page: number };
type Sort = 'asc' | 'desc';

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
  /**
   * `readDb` serves the two list pages (people, organizations), which may trail the primary by a
   * replica's lag: a page is a look at a moment. The operator's rights are always read on `db`.
   */
  constructor(
    private readonly db: Db,
    private readonly readDb: Db = db,
  ) {}

  /** The caller's admin rights, from the assertion and then the database (inside `db`'s transaction if any). */
  private async operator(db: Db, caller: Caller): Promise<Operator> {
    const userId = requireAdmin(caller);
    // The access token said admin, which it says only after the second factor when that is on.
    const read = await readAccess(db, userId, { twoFactorPassed: true });
    if (!read?.access.isAdmin) throw notAdmin();
    return { id: userId, email: read.facts.email };
  }

  private audit(
    db: Db,
    operator: Operator,
    entry: { kind: AdminAuditKind; target: string; details?: Record<string, unknown> },
  ): Promise<void> {
    return repo.insertAdminAudit(db, operator, entry);
  }

  /** Spec §2 Accounts, users: searched on e-mail and name, sorted, a page at a time with the total. */
  async users(
    caller: Caller,
    query: {
      q?: string | undefined;
      sort?: string | undefined;
      dir?: Sort | undefined;
      exclude_test?: boolean | undefined;
    } & PageQuery,
  ): Promise<Page<AdminUserRow>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const { total, rows } = await repo.pageUsers(this.readDb, {
      search: query.q?.trim(),
      excludeTest: query.exclude_test === true,
      ...userListOrder(query),
      limit: perPage,
      offset,
    });
    return {
      rows: rows.map((row) => {
        const access = listedAccess(row);
        return {
          id: row.id,
          email: row.email,
          full_name: row.full_name,
          account_type: row.account_type,
          role: access.role,
          is_admin: access.isAdmin,
          email_verified: row.email_verified_at !== null,
          organizations: Number(row.organizations ?? 0),
          is_test: row.is_test,
          created_at: new Date(row.created_at).toISOString(),
        };
      }),
      total,
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
      exclude_test?: boolean | undefined;
    } & PageQuery,
  ): Promise<Page<AdminOrganization>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const { total, rows } = await repo.pageOrganizations(this.readDb, {
      search: query.q?.trim(),
      active: query.status === undefined ? undefined : query.status === 'Active',
      excludeTest: query.exclude_test === true,
      ...organizationListOrder(query),
      limit: perPage,
      offset,
    });
    return { rows: rows.map(organizationRow), total, page, per_page: perPage };
  }

  private async organization(db: Db, orgId: string): Promise<AdminOrganization> {
    const row = await repo.findAdminOrganization(db, orgId);
    if (!row) throw organizationNotFound();
    return organizationRow(row);
  }

  /**
   * An operator suspends an organization whatever its plan, or lifts that. Its standing is decided
   * again the way billing's events decide it, so a change goes out as `identity.org.status-changed`
   * and provisioning stops (or brings back) its devices exactly as for a plan that ended.
   */
  async setOperatorSuspension(
    caller: Caller,
    orgId: string,
    suspended: boolean,
    reason: string | null = null,
  ): Promise<AdminOrganization> {
    const why = reason?.trim() ?? '';
    if (suspended && why === '')
      throw new AppError('validation_failed', 'Say why the organization is suspended: its members read it.');
    if (!isUuid(orgId)) {
      await this.operator(this.db, caller);
      throw organizationNotFound();
    }
    return this.db.transaction().execute(async (tx) => {
      const operator = await this.operator(tx, caller);
      const org = await repo.findOrganizationForUpdate(tx, orgId);
      if (!org) throw organizationNotFound();
      if (org.suspended_by_operator === suspended)
        throw new AppError(
          'conflict',
          suspended
            ? 'This organization is already suspended by an operator.'
            : 'This organization is not suspended by an operator.',
        );
      await repo.setSuspendedByOperator(tx, orgId, suspended, suspended ? why : null);
      await reconcileStanding(tx, orgId, new Date(), 'operator');
      const after = await this.organization(tx, orgId);
      await this.audit(tx, operator, {
        kind: suspended ? 'organization.suspended' : 'organization.reactivated',
        target: org.name,
        details: { org_id: orgId, status: after.status, plan: after.plan, ...(suspended ? { reason: why } : {}) },
      });
      return after;
    });
  }

  /** Spec §3 admin_emails: the addresses that grant admin. */
  async adminEmails(caller: Caller): Promise<{ emails: AdminEmail[] }> {
    await this.operator(this.db, caller);
    const rows = await repo.listAdminEmails(this.db);
    return { emails: rows.filter(grantsAdmin).map(adminEmailRow) };
  }

  /** An operator adds an address: its person is admin from their next sign-in or refresh, once verified. */
  async addAdminEmail(caller: Caller, raw: string): Promise<AdminEmail> {
    const email = normalizeEmail(raw);
    if (!isEmailAddress(email))
      throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
    return this.db.transaction().execute(async (tx) => {
      const operator = await this.operator(tx, caller);
      const existing = await repo.findAdminEmailForUpdate(tx, email);
      if (existing && grantsAdmin(existing))
        throw new AppError('already_exists', 'This address is already on the admin list.');
      const row = await repo.upsertOperatorAdminEmail(tx, email, operator.id);
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
      const list = await repo.listAdminEmails(tx, { forUpdate: true });
      const operator = await this.operator(tx, caller);
      const refusal = adminRemovalRefusal(list, email, operator.email);
      if (refusal) throw refusal;
      await repo.deleteAdminEmail(tx, email);
      // Every session began as an admin's: its refresh token would mint another admin claim. The
      // access tokens still live lose the console through the gateway's authority check.
      const removed = await accounts.findUserByEmail(tx, email);
      if (removed) await accounts.revokeAllSessions(tx, removed.id);
      await this.audit(tx, operator, { kind: 'admin_email.removed', target: email });
    });
  }

  /** The operators' own changes, newest first (the order is the repository's `pageAdminAudit`). */
  async auditLog(
    caller: Caller,
    query: PageQuery & { before?: AuditCursor | undefined },
  ): Promise<Page<AdminAuditEntry>> {
    await this.operator(this.db, caller);
    const { page, perPage, offset } = pageOf(query);
    const { total, rows } = await repo.pageAdminAudit(this.db, { before: query.before, limit: perPage, offset });
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
      total,
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
  suspension_reason: string | null;
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
    suspension_reason: row.suspended_by_operator ? row.suspension_reason : null,
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
