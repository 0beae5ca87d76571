import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  anonymousCaller,
  requireUserId,
  userVerified,
  type Caller,
  type EmailVerification,
  type IssuedSession,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import { takeRateLimited, takeRateLimits, tryTakeRate } from '@qw/platform/limits';
import type { Mailer, MailMessage } from '@qw/platform/mailer';
import type { IdentityDatabase } from '../database.ts';
import * as repo from '../accounts/accounts.repository.ts';
import { validateEmail } from '../accounts/account-rules.ts';
import { hashPassword, passwordProblem } from '../accounts/passwords.ts';
import { resendChecks, resetChecks } from '../accounts/rate-limits.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';
import { passwordResetMail, verificationMail } from '../mail/identity-mail.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import {
  linkState,
  linkUrl,
  resetLinkMinutes,
  setPasswordMinutes,
  verificationLinkHours,
  verificationLinkUsedMessage,
} from './email-link-rules.ts';

export type EmailLinksDeps = {
  db: Kysely<IdentityDatabase>;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
  sessions: SessionsService;
};

/**
 * The links mailed to a person's address and what opening them does: the address's verification
 * (then the "Choose a password" step), and a forgotten password's reset.
 */
export class EmailLinksService {
  constructor(private readonly deps: EmailLinksDeps) {}

  private get db() {
    return this.deps.db;
  }

  /** A new verification link's token, stored in the caller's transaction; mail it after the commit. */
  async addVerificationToken(tx: Kysely<IdentityDatabase>, userId: string): Promise<string> {
    const token = newSecretToken();
    await repo.insertEmailToken(tx, {
      tokenHash: hashSecretToken(token),
      purpose: 'verify_email',
      userId,
      expiresAt: new Date(Date.now() + verificationLinkHours * 3600_000),
    });
    return token;
  }

  sendVerification(email: string, token: string): Promise<void> {
    return this.sendMail(verificationMail(email, this.link('/auth/callback', { token, type: 'signup' })));
  }

  /**
   * A first verification proves the mailbox, not the password: whoever signed up may be someone
   * else (account pre-hijacking). So, opened anywhere else, it ends every session of the account
   * and answers a short-lived token with which the person who opened the link chooses the
   * password; the address counts as verified only once they have (`setPassword`). Opened by
   * `caller` signed in to this very account (a session the gateway found alive), it is the person
   * who signed up with that password opening their own mail: the address is confirmed, and no
   * session ends. (An attacker who signed up in someone else's name never sees the link.)
   */
  async verifyEmail(token: string, caller: Caller = anonymousCaller): Promise<EmailVerification> {
    const tokenHash = hashSecretToken(token);
    const setPasswordToken = newSecretToken();
    return this.db.transaction().execute(async (tx): Promise<EmailVerification> => {
      const row = await repo.findEmailTokenForUpdate(tx, tokenHash, 'verify_email');
      if (!row) throw new AppError('not_found', 'This verification link is not valid. Request a new one.');
      const user = await repo.findUserById(tx, row.user_id);
      if (!user) throw new AppError('not_found', 'This verification link is not valid. Request a new one.');
      const state = linkState(row);
      if (state === 'used' || user.email_verified_at !== null)
        throw new AppError('link_used', verificationLinkUsedMessage);
      if (state === 'expired')
        throw new AppError('link_expired', 'Your email verification link has expired. Please request a new one.');
      await repo.useEmailToken(tx, tokenHash);
      await repo.expireEmailTokens(tx, user.id, 'verify_email');
      if (caller.userId === user.id) {
        if (await repo.setEmailVerified(tx, user.id))
          await addToOutbox(tx, userVerified, { userId: user.id, verifiedAt: new Date().toISOString() });
        return { step: 'verified', email: user.email };
      }
      await repo.expireEmailTokens(tx, user.id, 'set_password');
      await repo.revokeAllSessions(tx, user.id);
      await repo.insertEmailToken(tx, {
        tokenHash: hashSecretToken(setPasswordToken),
        purpose: 'set_password',
        userId: user.id,
        expiresAt: new Date(Date.now() + setPasswordMinutes * 60_000),
      });
      return {
        step: 'choose_password',
        set_password_token: setPasswordToken,
        email: user.email,
        expires_in: setPasswordMinutes * 60,
      };
    });
  }

  /**
   * The step after a first verification: the password of the person who holds the mailbox. The
   * address is verified from now on, every other session (the sign-up's among them) has ended, and
   * this one begins.
   */
  async setPassword(input: { token: string; password: string }): Promise<IssuedSession> {
    const tokenHash = hashSecretToken(input.token);
    const passwordHash = await this.hashAcceptablePassword(tokenHash, input.password);
    return this.db.transaction().execute(async (tx) => {
      const { user } = await this.usableSetPasswordToken(tx, tokenHash);
      await repo.useEmailToken(tx, tokenHash);
      await repo.setPasswordHash(tx, user.id, passwordHash);
      await repo.revokeAllSessions(tx, user.id);
      if (await repo.setEmailVerified(tx, user.id))
        await addToOutbox(tx, userVerified, { userId: user.id, verifiedAt: new Date().toISOString() });
      return this.deps.sessions.issueSession(tx, user.id);
    });
  }

  /** Checks the token and the password policy before the (slow) hash, so a refusal costs nothing. */
  private async hashAcceptablePassword(tokenHash: string, password: string): Promise<string> {
    const { user } = await this.usableSetPasswordToken(this.db, tokenHash);
    const problem = passwordProblem(password, user.email);
    if (problem) throw new AppError('weak_password', problem, { field: 'password' });
    return hashPassword(password);
  }

  private async usableSetPasswordToken(db: Kysely<IdentityDatabase>, tokenHash: string) {
    const row = await repo.findEmailTokenForUpdate(db, tokenHash, 'set_password');
    const user = row ? await repo.findUserById(db, row.user_id) : undefined;
    if (!row || !user) throw new AppError('not_found', 'This step is not valid. Open the link in the email again.');
    const state = linkState(row);
    if (state === 'used') throw new AppError('link_expired', 'You have already chosen a password. Sign in with it.');
    if (state === 'expired')
      throw new AppError(
        'link_expired',
        'This step has expired. Sign in, or reset your password from the sign-in page.',
      );
    return { row, user };
  }

  async resendVerification(caller: Caller, addressKey: string): Promise<{ sent: boolean }> {
    const userId = requireUserId(caller);
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw new AppError('not_signed_in', 'Not signed in');
    if (user.email_verified_at) return { sent: false };
    const checks = resendChecks(userId, addressKey);
    const token = await this.db.transaction().execute(async (tx) => {
      await takeRateLimits(tx, [
        { checks: [checks.pause], message: (wait) => `We sent a link a moment ago. Try again in ${wait}.` },
        { checks: [checks.account], message: (wait) => `We sent several links already. Try again in ${wait}.` },
        { checks: [checks.address], message: (wait) => `Too many requests from here. Try again in ${wait}.` },
      ]);
      await repo.expireEmailTokens(tx, userId, 'verify_email');
      return this.addVerificationToken(tx, userId);
    });
    await this.sendVerification(user.email, token);
    return { sent: true };
  }

  /** Always answers the same way, so it tells nobody whether an account exists. */
  async forgotPassword(input: { email: string; address_key: string }): Promise<void> {
    const email = validateEmail(input.email);
    const checks = resetChecks(email, input.address_key);
    await takeRateLimited(this.db, [checks.address], (wait) => `Too many requests. Try again in ${wait}.`);
    const user = await repo.findUserByEmail(this.db, email);
    if (!user) return;
    // Past the account's mail limit the answer stays the same and nothing is sent: its owner still
    // has the last link, and nobody learns whether the account exists.
    if (!(await tryTakeRate(this.db, [checks.accountMail]))) return;
    const token = newSecretToken();
    await this.db.transaction().execute(async (tx) => {
      await repo.expireEmailTokens(tx, user.id, 'reset_password');
      await repo.insertEmailToken(tx, {
        tokenHash: hashSecretToken(token),
        purpose: 'reset_password',
        userId: user.id,
        expiresAt: new Date(Date.now() + resetLinkMinutes * 60_000),
      });
    });
    await this.sendMail(passwordResetMail(user.email, this.link('/reset-password', { token })));
  }

  async resetPassword(input: { token: string; password: string }): Promise<void> {
    const tokenHash = hashSecretToken(input.token);
    await this.db.transaction().execute(async (tx) => {
      const row = await repo.findEmailTokenForUpdate(tx, tokenHash, 'reset_password');
      if (!row) throw new AppError('not_found', 'This reset link is not valid. Request a new one.');
      const state = linkState(row);
      if (state === 'used')
        throw new AppError('link_expired', 'This reset link has already been used. Request a new one.');
      if (state === 'expired') throw new AppError('link_expired', 'This reset link has expired. Request a new one.');
      const user = await repo.findUserById(tx, row.user_id);
      if (!user) throw new AppError('not_found', 'This reset link is not valid. Request a new one.');
      const problem = passwordProblem(input.password, user.email);
      if (problem) throw new AppError('weak_password', problem, { field: 'password' });
      await repo.setPasswordHash(tx, user.id, await hashPassword(input.password));
      await repo.useEmailToken(tx, tokenHash);
      // The link proved access to the mailbox and the password is now the mailbox owner's: the
      // address is verified, and older verification links have nothing left to do.
      if (await repo.setEmailVerified(tx, user.id))
        await addToOutbox(tx, userVerified, { userId: user.id, verifiedAt: new Date().toISOString() });
      await repo.expireEmailTokens(tx, user.id, 'verify_email');
      await repo.expireEmailTokens(tx, user.id, 'set_password');
      await repo.revokeAllSessions(tx, user.id);
    });
  }

  private link(path: string, query: Record<string, string>): string {
    return linkUrl(this.deps.publicUrl, path, query);
  }

  /** Mail goes out after the commit; a failure is logged and the person can ask again. */
  private async sendMail(message: MailMessage): Promise<void> {
    try {
      await this.deps.mailer.send(message);
    } catch (error) {
      this.deps.logger.error({ err: error, subject: message.subject }, 'mail could not be sent');
    }
  }
}
