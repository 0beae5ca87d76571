import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  defaultRole,
  isEmailAddress,
  normalizeEmail,
  profileUpdated,
  requireUserId,
  resolveAccess,
  userRegistered,
  userVerified,
  type Access,
  type Caller,
  type IssuedSession,
  type Me,
  type Profile,
  type SessionUser,
  type SetPasswordGrant,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { Mailer, MailMessage } from '@qw/platform/mailer';
import type { IdentityDatabase, ProfileRow } from '../database.ts';
import * as repo from './accounts.repository.ts';
import { hashPassword, passwordProblem, spendPasswordCheck, verifyPassword } from './passwords.ts';
import { clearRateEvents, giveBackRateEvents, takeRateLimited, takeRateLimits, tryTakeRate } from '@qw/platform/limits';
import { resendChecks, resetChecks, signInChecks, signUpChecks } from './rate-limits.ts';
import { hashSecretToken, newSecretToken } from './secret-tokens.ts';
import { passwordResetMail, verificationMail } from '../mail/identity-mail.ts';

export const refreshTokenDays = 30;
export const verificationLinkHours = 24;
export const resetLinkMinutes = 60;
/** A verification link opened again (410 `link_used`); the auth callback page shows the same words. */
export const verificationLinkUsedMessage =
  'This verification link has already been used. Sign in, or request a new link.';
/** The "Choose a password" step after a first verification. */
export const setPasswordMinutes = 15;

export type AccountsDeps = {
  db: Kysely<IdentityDatabase>;
  mailer: Mailer;
  logger: Logger;
  publicUrl: string;
};

const invalidCredentials = () => new AppError('invalid_credentials', 'Invalid email or password.');
const sessionEnded = () => new AppError('invalid_token', 'Your session has ended. Please sign in again.');

function addDays(days: number): Date {
  return new Date(Date.now() + days * 24 * 3600 * 1000);
}

export function validateEmail(raw: string): string {
  const email = normalizeEmail(raw);
  if (!isEmailAddress(email))
    throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
  return email;
}

/** Sign-up, sign-in, sessions, e-mail links and the profile. */
export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  private get db() {
    return this.deps.db;
  }

  /**
   * The person as a session carries them, with rights decided by the one rule (contracts'
   * `resolveAccess`) from what the database says now and whether this session passed the second
   * factor.
   */
  async sessionUser(db: Kysely<IdentityDatabase>, userId: string, twoFactorPassed: boolean): Promise<SessionUser> {
    const user = await repo.findUserById(db, userId);
    if (!user) throw sessionEnded();
    const access = await this.access(db, userId, twoFactorPassed);
    if (!access) throw sessionEnded();
    return {
      id: user.id,
      email: user.email,
      account_type: access.accountType,
      role: access.role,
      is_admin: access.isAdmin,
      email_verified: user.email_verified_at !== null,
    };
  }

  /** Role and admin rights now, or undefined when the account is gone. */
  private async access(
    db: Kysely<IdentityDatabase>,
    userId: string,
    twoFactorPassed: boolean,
  ): Promise<(Access & { accountType: string }) | undefined> {
    const user = await repo.findUserById(db, userId);
    const profile = await repo.findProfile(db, userId);
    if (!user || !profile) return undefined;
    const access = resolveAccess({
      profileRole: profile.role,
      accountType: profile.account_type,
      adminEntry: await repo.findAdminEntry(db, user.email),
      emailVerified: user.email_verified_at !== null,
      twoFactorEnabled: await repo.isTwoFactorEnabled(db, userId),
      twoFactorPassed,
    });
    return { ...access, accountType: profile.account_type };
  }

  /**
   * Admin rights for a request, checked against the database now. Whether the session passed the
   * second factor is known only from its access token, whose admin claim already required it: a
   * caller whose token does not say admin is not one; one whose token does must still be one now.
   */
  async adminStatus(caller: Caller): Promise<{ is_admin: boolean }> {
    const userId = requireUserId(caller);
    if (!caller.isAdmin) return { is_admin: false };
    const access = await this.access(this.db, userId, true);
    return { is_admin: access?.isAdmin === true };
  }

  /** A new refresh-token family: one per sign-in. */
  async issueSession(
    db: Kysely<IdentityDatabase>,
    userId: string,
    options: { familyId?: string; twoFactorPassed?: boolean } = {},
  ): Promise<IssuedSession> {
    const token = newSecretToken();
    const expiresAt = addDays(refreshTokenDays);
    const twoFactor = options.twoFactorPassed ?? false;
    const familyId = options.familyId ?? randomUUID();
    await repo.insertRefreshToken(db, {
      tokenHash: hashSecretToken(token),
      familyId,
      userId,
      expiresAt,
      twoFactor,
    });
    return {
      user: await this.sessionUser(db, userId, twoFactor),
      session_id: familyId,
      refresh_token: token,
      refresh_expires_at: expiresAt.toISOString(),
    };
  }

  async signUp(input: { email: string; password: string; address_key: string }): Promise<IssuedSession> {
    const email = validateEmail(input.email);
    const problem = passwordProblem(input.password, email);
    if (problem) throw new AppError('weak_password', problem, { field: 'password' });
    // Every attempt that passed validation counts, a refused duplicate too (it tells whether an
    // address has an account), and before the slow hash.
    const checks = signUpChecks(email, input.address_key);
    await takeRateLimits(this.db, [
      { checks: checks.address, message: (wait) => `Too many new accounts from here. Try again in ${wait}.` },
      {
        checks: checks.domain,
        message: (wait) => `Too many new accounts for this email domain. Try again in ${wait}.`,
      },
    ]);
    const passwordHash = await hashPassword(input.password);
    const userId = randomUUID();
    const verifyToken = newSecretToken();
    const session = await this.db.transaction().execute(async (tx) => {
      const created = await repo.insertUserWithProfile(tx, { id: userId, email, passwordHash });
      if (!created)
        throw new AppError('already_exists', 'A user with this email address has already been registered.', {
          field: 'email',
        });
      await repo.insertEmailToken(tx, {
        tokenHash: hashSecretToken(verifyToken),
        purpose: 'verify_email',
        userId,
        expiresAt: new Date(Date.now() + verificationLinkHours * 3600_000),
      });
      await addToOutbox(tx, userRegistered, {
        userId,
        accountType: 'personal',
        registeredAt: new Date().toISOString(),
      });
      return this.issueSession(tx, userId);
    });
    await this.sendMail(verificationMail(email, this.link('/auth/callback', { token: verifyToken, type: 'signup' })));
    return session;
  }

  /**
   * The demo history's sign-up (DEMO_TOOLS only): an account as if made on `registered_at`, its
   * address confirmed then, with a random password nobody is told (no session, no mail). Its
   * events say that day, so analytics counts it there.
   */
  async demoSignUp(input: { email: string; full_name?: string | undefined; registered_at: string }) {
    const email = validateEmail(input.email);
    const registeredAt = new Date(input.registered_at);
    if (Number.isNaN(registeredAt.getTime()))
      throw new AppError('validation_failed', 'registered_at must be a date and time.', { field: 'registered_at' });
    if (registeredAt.getTime() > Date.now() + 60_000)
      throw new AppError('validation_failed', 'registered_at must not be in the future.', { field: 'registered_at' });
    const passwordHash = await hashPassword(newSecretToken());
    const userId = randomUUID();
    await this.db.transaction().execute(async (tx) => {
      const created = await repo.insertUserWithProfile(tx, {
        id: userId,
        email,
        passwordHash,
        createdAt: registeredAt,
        emailVerifiedAt: registeredAt,
        fullName: input.full_name?.trim() || null,
      });
      if (!created)
        throw new AppError('already_exists', 'A user with this email address has already been registered.', {
          field: 'email',
        });
      await addToOutbox(tx, userRegistered, {
        userId,
        accountType: 'personal',
        registeredAt: registeredAt.toISOString(),
      });
      await addToOutbox(tx, userVerified, { userId, verifiedAt: registeredAt.toISOString() });
    });
    this.deps.logger.info({ userId }, 'demo account made');
    return { user_id: userId };
  }

  async signIn(input: { email: string; password: string; address_key: string }): Promise<{ userId: string }> {
    const email = normalizeEmail(input.email);
    const checks = signInChecks(email, input.address_key);
    // Counted as a failure before the password is checked, so parallel guesses cannot all pass
    // the same count; a right password gives its count back.
    const attempt = await takeRateLimited(
      this.db,
      [checks.pair, checks.address],
      (wait) => `Too many sign-in attempts. Try again in ${wait}.`,
    );
    const user = await repo.findUserByEmail(this.db, email);
    // An unknown address spends the same time on a password check, so timing tells nothing.
    if (!user) await spendPasswordCheck(input.password);
    const valid = user ? await verifyPassword(user.password_hash, input.password) : false;
    if (!user || !valid) throw invalidCredentials();
    await giveBackRateEvents(this.db, attempt);
    await clearRateEvents(this.db, checks.pair.key);
    return { userId: user.id };
  }

  async refresh(refreshToken: string): Promise<IssuedSession> {
    const tokenHash = hashSecretToken(refreshToken);
    const outcome = await this.db.transaction().execute(async (tx) => {
      const row = await repo.findRefreshTokenForUpdate(tx, tokenHash);
      if (!row || row.revoked_at) return { error: sessionEnded() };
      if (row.used_at) {
        // A rotated token came back: someone holds a copy. End every session of this sign-in.
        await repo.revokeFamily(tx, row.family_id);
        this.deps.logger.warn({ userId: row.user_id }, 'refresh token reused; session family revoked');
        return { error: sessionEnded() };
      }
      if (new Date(row.expires_at).getTime() <= Date.now()) return { error: sessionEnded() };
      await repo.markRefreshTokenUsed(tx, tokenHash);
      return {
        session: await this.issueSession(tx, row.user_id, { familyId: row.family_id, twoFactorPassed: row.two_factor }),
      };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.session;
  }

  async signOut(refreshToken: string): Promise<void> {
    const row = await this.db
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where('token_hash', '=', hashSecretToken(refreshToken))
      .executeTakeFirst();
    if (row) await repo.revokeFamily(this.db, row.family_id);
  }

  /**
   * A first verification proves the mailbox, not the password: whoever signed up may be someone
   * else (account pre-hijacking). So it ends every session of the account and answers a
   * short-lived token with which the person who opened the link chooses the password; the
   * address counts as verified only once they have (`setPassword`).
   */
  async verifyEmail(token: string): Promise<SetPasswordGrant> {
    const tokenHash = hashSecretToken(token);
    const setPasswordToken = newSecretToken();
    return this.db.transaction().execute(async (tx) => {
      const row = await repo.findEmailTokenForUpdate(tx, tokenHash, 'verify_email');
      if (!row) throw new AppError('not_found', 'This verification link is not valid. Request a new one.');
      const user = await repo.findUserById(tx, row.user_id);
      if (!user) throw new AppError('not_found', 'This verification link is not valid. Request a new one.');
      if (row.used_at || user.email_verified_at !== null) throw new AppError('link_used', verificationLinkUsedMessage);
      if (new Date(row.expires_at).getTime() <= Date.now())
        throw new AppError('link_expired', 'Your email verification link has expired. Please request a new one.');
      await repo.useEmailToken(tx, tokenHash);
      await repo.expireEmailTokens(tx, user.id, 'verify_email');
      await repo.expireEmailTokens(tx, user.id, 'set_password');
      await repo.revokeAllSessions(tx, user.id);
      await repo.insertEmailToken(tx, {
        tokenHash: hashSecretToken(setPasswordToken),
        purpose: 'set_password',
        userId: user.id,
        expiresAt: new Date(Date.now() + setPasswordMinutes * 60_000),
      });
      return { set_password_token: setPasswordToken, email: user.email, expires_in: setPasswordMinutes * 60 };
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
      return this.issueSession(tx, user.id);
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
    if (row.used_at) throw new AppError('link_expired', 'You have already chosen a password. Sign in with it.');
    if (new Date(row.expires_at).getTime() <= Date.now())
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
    const token = newSecretToken();
    await this.db.transaction().execute(async (tx) => {
      await takeRateLimits(tx, [
        { checks: [checks.pause], message: (wait) => `We sent a link a moment ago. Try again in ${wait}.` },
        { checks: [checks.account], message: (wait) => `We sent several links already. Try again in ${wait}.` },
        { checks: [checks.address], message: (wait) => `Too many requests from here. Try again in ${wait}.` },
      ]);
      await repo.expireEmailTokens(tx, userId, 'verify_email');
      await repo.insertEmailToken(tx, {
        tokenHash: hashSecretToken(token),
        purpose: 'verify_email',
        userId,
        expiresAt: new Date(Date.now() + verificationLinkHours * 3600_000),
      });
    });
    await this.sendMail(verificationMail(user.email, this.link('/auth/callback', { token, type: 'signup' })));
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
      if (row.used_at) throw new AppError('link_expired', 'This reset link has already been used. Request a new one.');
      if (new Date(row.expires_at).getTime() <= Date.now())
        throw new AppError('link_expired', 'This reset link has expired. Request a new one.');
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

  async me(caller: Caller, mfaEnabled: (userId: string) => Promise<boolean>): Promise<Me> {
    const userId = requireUserId(caller);
    const user = await repo.findUserById(this.db, userId);
    const profile = await repo.findProfile(this.db, userId);
    if (!user || !profile) throw new AppError('not_signed_in', 'Not signed in');
    // The same reading as adminStatus: the session's own claim, confirmed by the database now.
    const access = await this.access(this.db, userId, caller.isAdmin);
    return {
      user: { id: user.id, email: user.email, created_at: new Date(user.created_at).toISOString() },
      profile: toProfile(profile),
      role: access?.role ?? defaultRole,
      is_admin: caller.isAdmin && access?.isAdmin === true,
      email_verified: user.email_verified_at !== null,
      mfa_enabled: await mfaEnabled(user.id),
      org_member: await repo.isOrgMember(this.db, user.id),
    };
  }

  async updateProfile(
    caller: Caller,
    input: { full_name?: string | null; avatar_url?: string | null },
  ): Promise<Profile> {
    const userId = requireUserId(caller);
    const fields: { full_name?: string | null; avatar_url?: string | null } = {};
    if (input.full_name !== undefined) {
      const name = input.full_name?.trim() ?? '';
      if (name.length > 100)
        throw new AppError('validation_failed', 'Full name can be at most 100 characters.', { field: 'full_name' });
      fields.full_name = name || null;
    }
    if (input.avatar_url !== undefined) {
      const url = input.avatar_url?.trim() ?? '';
      if (url.length > 2048)
        throw new AppError('validation_failed', 'Avatar URL can be at most 2,048 characters.', { field: 'avatar_url' });
      if (url && !isHttpsUrl(url))
        throw new AppError('validation_failed', 'Avatar URL must be an https:// address.', { field: 'avatar_url' });
      fields.avatar_url = url || null;
    }
    return this.db.transaction().execute(async (tx) => {
      const before = await repo.findProfile(tx, userId);
      if (!before) throw new AppError('not_signed_in', 'Not signed in');
      const changed = (Object.keys(fields) as Array<keyof typeof fields>).filter((key) => fields[key] !== before[key]);
      if (changed.length === 0) return toProfile(before);
      const after = await repo.updateProfileFields(tx, userId, fields);
      await addToOutbox(tx, profileUpdated, { userId, fields: changed });
      return toProfile(after!);
    });
  }

  private link(path: string, query: Record<string, string>): string {
    const url = new URL(path, this.deps.publicUrl);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    return url.toString();
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

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export function toProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    avatar_url: row.avatar_url,
    account_type: row.account_type,
    role: row.role ?? 'client',
  };
}
