import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AppError, requireUserId, userDeleted, type Caller, type IdentityAccountData } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { Mailer } from '@qw/platform/mailer';
import { takeRateLimited } from '@qw/platform/limits';
import type { IdentityDatabase } from '../database.ts';
import { accountDeletedMail } from '../mail/identity-mail.ts';
import * as repo from './account-data.repository.ts';
import { deletionRefusal, organizationsToDelete } from './account-deletion-rules.ts';
import { verifyPassword } from './passwords.ts';

const iso = (value: Date | string) => new Date(value).toISOString();

/** Five wrong passwords in 15 minutes stop a stolen session from guessing through this form. */
const deletionAttempts = { max: 5, windowSeconds: 15 * 60 };

/** A person's own data in identity: their export, and the deletion of their account. */
export class AccountDataService {
  constructor(private readonly deps: { db: Kysely<IdentityDatabase>; mailer: Mailer; logger: Logger }) {}

  async export(caller: Caller): Promise<IdentityAccountData> {
    const { db } = this.deps;
    const userId = requireUserId(caller);
    const account = await repo.findAccountForExport(db, userId);
    if (!account) throw new AppError('not_signed_in', 'Please sign in again.');
    const [memberships, audit] = await Promise.all([
      repo.membershipsForExport(db, userId),
      repo.auditEntriesAbout(db, userId),
    ]);
    return {
      account: {
        id: account.id,
        email: account.email,
        full_name: account.full_name,
        avatar_url: account.avatar_url,
        account_type: account.account_type,
        created_at: iso(account.created_at),
        email_verified: account.email_verified_at !== null,
        email_verified_at: account.email_verified_at ? iso(account.email_verified_at) : null,
        two_factor: account.mfa_user !== null,
      },
      organizations: memberships.map((m) => ({ id: m.id, name: m.name, role: m.role, joined_at: iso(m.created_at) })),
      audit: audit.map((entry) => ({
        organization_id: entry.org_id,
        at: iso(entry.at),
        kind: entry.kind,
        actor_name: entry.actor_name,
        target_kind: entry.target_kind,
        target_name: entry.target_name,
      })),
    };
  }

  /**
   * Checks the password, refuses the last owner of an organization others still need, then erases
   * the account in one transaction with `identity.user.deleted` in its outbox (billing and
   * provisioning do their part from it). The confirmation goes to the address held in memory
   * only: once committed, identity no longer knows it.
   */
  async delete(caller: Caller, password: string): Promise<{ deleted_at: string }> {
    const { db, logger } = this.deps;
    const userId = requireUserId(caller);
    await takeRateLimited(
      db,
      [{ key: `delete-account:${userId}`, limit: deletionAttempts }],
      (wait) => `Too many attempts. Try again in ${wait}.`,
    );
    const user = await db
      .selectFrom('users')
      .select(['id', 'email', 'password_hash'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw new AppError('not_signed_in', 'Please sign in again.');
    if (!(await verifyPassword(user.password_hash, password)))
      throw new AppError('validation_failed', 'That password is not right.', { field: 'password' });
    const deletedAt = new Date();
    await db.transaction().execute(async (tx) => {
      await tx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
      const memberships = (await repo.membershipsAtDeletion(tx, userId)).map((m) => ({
        id: m.id,
        name: m.name,
        role: m.role,
        isActive: m.is_active,
        members: Number(m.members ?? 0),
        owners: Number(m.owners ?? 0),
      }));
      const refusal = deletionRefusal(memberships);
      if (refusal) throw new AppError('conflict', refusal);
      await repo.eraseAccount(tx, user, organizationsToDelete(memberships));
      await addToOutbox(tx, userDeleted, { userId, deletedAt: deletedAt.toISOString() });
    });
    try {
      await this.deps.mailer.send(accountDeletedMail(user.email));
    } catch (error) {
      logger.error({ err: error, userId }, 'account deletion mail could not be sent');
    }
    return { deleted_at: deletedAt.toISOString() };
  }
}
