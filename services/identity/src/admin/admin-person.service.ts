import type { Kysely } from 'kysely';
import { AppError, userSuspensionChanged, type AdminPersonIdentity, type Caller } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import { accountSuspensionOf, suspensionChange, type AccountSuspension } from './account-suspension-rules.ts';
import { listedAccess } from './listed-access.ts';
import type { IdentityDatabase } from '../database.ts';
import * as accounts from '../accounts/accounts.repository.ts';
import type { EmailLinksService } from '../email-links/email-links.service.ts';
import { insertAdminAudit } from './admin-console.repository.ts';
import * as repo from './admin-person.repository.ts';
import { requireOperator } from './operator.ts';

type Db = Kysely<IdentityDatabase>;

const iso = (value: Date | string) => new Date(value).toISOString();
export const personNotFound = () => new AppError('not_found', 'No account has this id.');

/**
 * One person as the operator console's page shows them (issue #26): identity's part (profile,
 * sessions, organizations with roles, the audit about them). Platform admins only, decided again
 * from the database at the time of the request.
 */
export class AdminPersonService {
  constructor(
    private readonly db: Db,
    private readonly emailLinks: EmailLinksService,
  ) {}

  /**
   * Every session of the person ends, as a password change ends them: each refresh token is
   * revoked now, and the gateway's caller assertion (asked again within a second) stops their
   * access tokens. Audited with how many sign-ins could still refresh.
   */
  async endSessions(caller: Caller, userId: string): Promise<{ ended: number }> {
    return this.db.transaction().execute(async (tx) => {
      const operator = await requireOperator(tx, caller);
      const person = await accounts.findUserById(tx, userId);
      if (!person) throw personNotFound();
      const { active } = await repo.sessionsOf(tx, userId);
      await accounts.revokeAllSessions(tx, userId);
      await insertAdminAudit(tx, operator, {
        kind: 'user.sessions_ended',
        target: person.email,
        details: { user_id: userId, sessions: active },
      });
      return { ended: active };
    });
  }

  /**
   * The operator suspends the person's account with a reason they read on their dashboard, or
   * lifts it (issue #26). Provisioning holds the person's devices off while it lasts (the event
   * leaves in the same transaction); they can still sign in, pay, export their data and write to
   * support. Audited with the reason.
   */
  async setSuspension(
    caller: Caller,
    userId: string,
    suspended: boolean,
    reason: string | undefined,
  ): Promise<{ suspension: AccountSuspension | null }> {
    return this.db.transaction().execute(async (tx) => {
      const operator = await requireOperator(tx, caller);
      const person = await tx.selectFrom('users').selectAll().where('id', '=', userId).forUpdate().executeTakeFirst();
      if (!person) throw personNotFound();
      const change = suspensionChange({
        operatorId: operator.id,
        userId,
        suspended,
        reason,
        current: accountSuspensionOf(person),
      });
      const now = new Date();
      const after = await tx
        .updateTable('users')
        .set({ suspended_at: suspended ? now : null, suspension_reason: change.reason })
        .where('id', '=', userId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await addToOutbox(tx, userSuspensionChanged, { userId, suspended, changedAt: now.toISOString() });
      await insertAdminAudit(tx, operator, {
        kind: suspended ? 'user.suspended' : 'user.reactivated',
        target: person.email,
        details: { user_id: userId, ...(change.reason ? { reason: change.reason } : {}) },
      });
      return { suspension: accountSuspensionOf(after) };
    });
  }

  /**
   * The operator marks the person's account as a test account or unmarks it (issue #26): the
   * console's figures and lists can then leave it out. Marking what already is so changes nothing
   * and is not audited again.
   */
  async setTestAccount(caller: Caller, userId: string, isTest: boolean): Promise<{ is_test: boolean }> {
    return this.db.transaction().execute(async (tx) => {
      const operator = await requireOperator(tx, caller);
      const person = await tx
        .selectFrom('users')
        .select(['email', 'is_test'])
        .where('id', '=', userId)
        .forUpdate()
        .executeTakeFirst();
      if (!person) throw personNotFound();
      if (person.is_test === isTest) return { is_test: isTest };
      await tx.updateTable('users').set({ is_test: isTest }).where('id', '=', userId).execute();
      await insertAdminAudit(tx, operator, {
        kind: isTest ? 'user.test_marked' : 'user.test_unmarked',
        target: person.email,
        details: { user_id: userId },
      });
      return { is_test: isTest };
    });
  }

  /**
   * The verification mail again (identity's own, with a new link; earlier links stop working), for
   * an address not yet confirmed. No rate limit of the person's own applies: an operator asks.
   */
  async resendVerification(caller: Caller, userId: string): Promise<{ sent_to: string }> {
    const { email, token } = await this.db.transaction().execute(async (tx) => {
      const operator = await requireOperator(tx, caller);
      const person = await accounts.findUserById(tx, userId);
      if (!person) throw personNotFound();
      if (person.email_verified_at)
        throw new AppError('conflict', 'This address is already confirmed: there is nothing to verify.');
      await accounts.expireEmailTokens(tx, userId, 'verify_email');
      const token = await this.emailLinks.addVerificationToken(tx, userId);
      await insertAdminAudit(tx, operator, {
        kind: 'user.verification_sent',
        target: person.email,
        details: { user_id: userId },
      });
      return { email: person.email, token };
    });
    await this.emailLinks.sendVerification(email, token);
    return { sent_to: email };
  }

  async person(caller: Caller, userId: string): Promise<AdminPersonIdentity> {
    await requireOperator(this.db, caller);
    const row = await repo.findPerson(this.db, userId);
    if (!row) throw personNotFound();
    const [sessions, organizations, activity, actions] = await Promise.all([
      repo.sessionsOf(this.db, userId),
      repo.membershipsOf(this.db, userId),
      repo.activityAbout(this.db, userId),
      repo.operatorActionsOn(this.db, userId),
    ]);
    const access = listedAccess(row);
    return {
      profile: {
        id: row.id,
        email: row.email,
        full_name: row.full_name,
        email_verified: row.email_verified_at !== null,
        email_verified_at: row.email_verified_at ? iso(row.email_verified_at) : null,
        created_at: iso(row.created_at),
        account_type: row.account_type,
        role: access.role,
        is_admin: access.isAdmin,
        two_factor: row.two_factor === true,
        suspension: accountSuspensionOf(row),
        is_test: row.is_test,
      },
      sessions: { active: sessions.active, last_used_at: sessions.lastUsedAt ? iso(sessions.lastUsedAt) : null },
      organizations: organizations.map((m) => ({ id: m.id, name: m.name, role: m.role, joined_at: iso(m.created_at) })),
      // The operator reads names as written: an operator's change is not hidden behind "Quietwire support" here.
      activity: activity.map((entry) => ({
        id: entry.id,
        at: iso(entry.at),
        kind: entry.kind,
        actor:
          entry.actor_id || entry.actor_name
            ? { user_id: entry.actor_id, name: entry.actor_name ?? 'A former user' }
            : null,
        target:
          entry.target_kind && entry.target_id
            ? { kind: entry.target_kind, id: entry.target_id, name: entry.target_name ?? '' }
            : null,
        details: entry.details ?? {},
        organization: { id: entry.org_id, name: entry.org_name },
      })),
      operator_actions: actions.map((entry) => ({
        id: entry.id,
        at: iso(entry.at),
        actor_id: entry.actor_id,
        actor_email: entry.actor_email,
        kind: entry.kind,
        target: entry.target,
        details: entry.details,
      })),
    };
  }
}
