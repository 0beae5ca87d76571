import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AppError, isEmailAddress, normalizeEmail, profileUpdated, requireUserId, userRegistered, userVerified, type Caller, type IssuedSession, type Me, type Profile, type SessionUser } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { Mailer, MailMessage } from '@qw/platform/mailer';
import type { IdentityDatabase, ProfileRow } from '../database.ts';
import * as repo from './accounts.repository.ts';
import { hashPassword, passwordProblem, spendPasswordCheck, verifyPassword } from './passwords.ts';
import { clearRateEvents, minutesText, recordRateEvent, resetLimit, retryAfterSeconds, signInLimits } from './rate-limits.ts';
import { isPlatformAdmin, resolveRole } from './roles.ts';
import { hashSecretToken, newSecretToken } from './secret-tokens.ts';
import { passwordResetMail, verificationMail } from '../mail/identity-mail.ts';

export const refreshTokenDays = 30;
export const verificationLinkHours = 24;
export const resetLinkMinutes = 60;

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
  if (!isEmailAddress(email)) throw new AppError('validation_failed', 'Enter a valid email address.', { field: 'email' });
  return email;
}

/** Sign-up, sign-in, sessions, e-mail links and the profile. */
export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  private get db() {
    return this.deps.db;
  }

  async sessionUser(db: Kysely<IdentityDatabase>, userId: string): Promise<SessionUser> {
    const user = await repo.findUserById(db, userId);
    const profile = await repo.findProfile(db, userId);
    if (!user || !profile) throw sessionEnded();
    const adminEntry = await repo.findAdminEntry(db, user.email);
    return {
      id: user.id,
      email: user.email,
      account_type: profile.account_type,
      role: resolveRole(profile.role, adminEntry),
      is_admin: isPlatformAdmin(profile, adminEntry),
      email_verified: user.email_verified_at !== null,
    };
  }

  /** A new refresh-token family: one per sign-in. */
  async issueSession(db: Kysely<IdentityDatabase>, userId: string, familyId: string = randomUUID()): Promise<IssuedSession> {
    const token = newSecretToken();
    const expiresAt = addDays(refreshTokenDays);
    await repo.insertRefreshToken(db, { tokenHash: hashSecretToken(token), familyId, userId, expiresAt });
    return { user: await this.sessionUser(db, userId), refresh_token: token, refresh_expires_at: expiresAt.toISOString() };
  }

  async signUp(input: { email: string; password: string }): Promise<IssuedSession> {
    const email = validateEmail(input.email);
    const problem = passwordProblem(input.password, email);
    if (problem) throw new AppError('weak_password', problem, { field: 'password' });
    const passwordHash = await hashPassword(input.password);
    const userId = randomUUID();
    const verifyToken = newSecretToken();
    const session = await this.db.transaction().execute(async (tx) => {
      const created = await repo.insertUserWithProfile(tx, { id: userId, email, passwordHash });
      if (!created) throw new AppError('already_exists', 'A user with this email address has already been registered.', { field: 'email' });
      await repo.insertEmailToken(tx, { tokenHash: hashSecretToken(verifyToken), purpose: 'verify_email', userId, expiresAt: new Date(Date.now() + verificationLinkHours * 3600_000) });
      await addToOutbox(tx, userRegistered, { userId, accountType: 'personal', registeredAt: new Date().toISOString() });
      return this.issueSession(tx, userId);
    });
    await this.sendMail(verificationMail(email, this.link('/auth/callback', { token: verifyToken, type: 'signup' })));
    return session;
  }

  async signIn(input: { email: string; password: string; address_key: string }): Promise<{ userId: string } > {
    const email = normalizeEmail(input.email);
    const accountKey = `signin:account:${hashSecretToken(email)}`;
    const addressKey = `signin:address:${input.address_key}`;
    const wait = Math.max(
      await retryAfterSeconds(this.db, accountKey, signInLimits.account),
      await retryAfterSeconds(this.db, addressKey, signInLimits.address),
    );
    if (wait > 0) {
      throw new AppError('rate_limited', `Too many sign-in attempts. Try again in ${minutesText(wait)}.`, { retry_after_seconds: wait });
    }
    const user = await repo.findUserByEmail(this.db, email);
    const valid = user ? await verifyPassword(user.password_hash, input.password) : (await spendPasswordCheck(input.password), false);
    if (!user || !valid) {
      await recordRateEvent(this.db, accountKey);
      await recordRateEvent(this.db, addressKey);
      throw invalidCredentials();
    }
    await clearRateEvents(this.db, accountKey);
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
      return { session: await this.issueSession(tx, row.user_id, row.family_id) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.session;
  }

  async signOut(refreshToken: string): Promise<void> {
    const row = await this.db.selectFrom('refresh_tokens').select('family_id').where('token_hash', '=', hashSecretToken(refreshToken)).executeTakeFirst();
    if (row) await repo.revokeFamily(this.db, row.family_id);
  }

  async verifyEmail(token: string): Promise<IssuedSession> {
    const tokenHash = hashSecretToken(token);
    return this.db.transaction().execute(async (tx) => {
      const row = await repo.findEmailTokenForUpdate(tx, tokenHash, 'verify_email');
      if (!row) throw new AppError('not_found', 'This verification link is not valid. Request a new one.');
      if (row.used_at) throw new AppError('link_expired', 'This verification link has already been used. Sign in, or request a new link.');
      if (new Date(row.expires_at).getTime() <= Date.now()) throw new AppError('link_expired', 'Your email verification link has expired. Please request a new one.');
      await repo.useEmailToken(tx, tokenHash);
      const user = await repo.findUserById(tx, row.user_id);
      if (user && user.email_verified_at === null) {
        await repo.setEmailVerified(tx, row.user_id);
        await addToOutbox(tx, userVerified, { userId: row.user_id, verifiedAt: new Date().toISOString() });
      }
      return this.issueSession(tx, row.user_id);
    });
  }

  async resendVerification(caller: Caller): Promise<{ sent: boolean }> {
    const userId = requireUserId(caller);
    const user = await repo.findUserById(this.db, userId);
    if (!user) throw new AppError('not_signed_in', 'Not signed in');
    if (user.email_verified_at) return { sent: false };
    const wait = await retryAfterSeconds(this.db, `verify:${userId}`, resetLimit);
    if (wait > 0) throw new AppError('rate_limited', `We sent several links already. Try again in ${minutesText(wait)}.`, { retry_after_seconds: wait });
    const token = newSecretToken();
    await this.db.transaction().execute(async (tx) => {
      await repo.expireEmailTokens(tx, userId, 'verify_email');
      await repo.insertEmailToken(tx, { tokenHash: hashSecretToken(token), purpose: 'verify_email', userId, expiresAt: new Date(Date.now() + verificationLinkHours * 3600_000) });
      await recordRateEvent(tx, `verify:${userId}`);
    });
    await this.sendMail(verificationMail(user.email, this.link('/auth/callback', { token, type: 'signup' })));
    return { sent: true };
  }

  /** Always answers the same way, so it tells nobody whether an account exists. */
  async forgotPassword(input: { email: string; address_key: string }): Promise<void> {
    const email = validateEmail(input.email);
    const key = `reset:${input.address_key}`;
    const wait = await retryAfterSeconds(this.db, key, resetLimit);
    if (wait > 0) throw new AppError('rate_limited', `Too many requests. Try again in ${minutesText(wait)}.`, { retry_after_seconds: wait });
    await recordRateEvent(this.db, key);
    const user = await repo.findUserByEmail(this.db, email);
    if (!user) return;
    const token = newSecretToken();
    await this.db.transaction().execute(async (tx) => {
      await repo.expireEmailTokens(tx, user.id, 'reset_password');
      await repo.insertEmailToken(tx, { tokenHash: hashSecretToken(token), purpose: 'reset_password', userId: user.id, expiresAt: new Date(Date.now() + resetLinkMinutes * 60_000) });
    });
    await this.sendMail(passwordResetMail(user.email, this.link('/reset-password', { token })));
  }

  async resetPassword(input: { token: string; password: string }): Promise<void> {
    const tokenHash = hashSecretToken(input.token);
    await this.db.transaction().execute(async (tx) => {
      const row = await repo.findEmailTokenForUpdate(tx, tokenHash, 'reset_password');
      if (!row) throw new AppError('not_found', 'This reset link is not valid. Request a new one.');
      if (row.used_at) throw new AppError('link_expired', 'This reset link has already been used. Request a new one.');
      if (new Date(row.expires_at).getTime() <= Date.now()) throw new AppError('link_expired', 'This reset link has expired. Request a new one.');
      const user = await repo.findUserById(tx, row.user_id);
      if (!user) throw new AppError('not_found', 'This reset link is not valid. Request a new one.');
      const problem = passwordProblem(input.password, user.email);
      if (problem) throw new AppError('weak_password', problem, { field: 'password' });
      await repo.setPasswordHash(tx, user.id, await hashPassword(input.password));
      await repo.useEmailToken(tx, tokenHash);
      // The link proved access to the mailbox, which also proves the address.
      await repo.setEmailVerified(tx, user.id);
      await repo.revokeAllSessions(tx, user.id);
    });
  }

  async me(caller: Caller, mfaEnabled: (userId: string) => Promise<boolean>): Promise<Me> {
    const userId = requireUserId(caller);
    const user = await repo.findUserById(this.db, userId);
    const profile = await repo.findProfile(this.db, userId);
    if (!user || !profile) throw new AppError('not_signed_in', 'Not signed in');
    const adminEntry = await repo.findAdminEntry(this.db, user.email);
    return {
      user: { id: user.id, email: user.email, created_at: new Date(user.created_at).toISOString() },
      profile: toProfile(profile),
      role: resolveRole(profile.role, adminEntry),
      is_admin: isPlatformAdmin(profile, adminEntry),
      email_verified: user.email_verified_at !== null,
      mfa_enabled: await mfaEnabled(user.id),
      org_member: await repo.isOrgMember(this.db, user.id),
    };
  }

  async updateProfile(caller: Caller, input: { full_name?: string | null; avatar_url?: string | null }): Promise<Profile> {
    const userId = requireUserId(caller);
    const fields: { full_name?: string | null; avatar_url?: string | null } = {};
    if (input.full_name !== undefined) {
      const name = input.full_name?.trim() ?? '';
      if (name.length > 100) throw new AppError('validation_failed', 'Full name can be at most 100 characters.', { field: 'full_name' });
      fields.full_name = name || null;
    }
    if (input.avatar_url !== undefined) {
      const url = input.avatar_url?.trim() ?? '';
      if (url.length > 2048) throw new AppError('validation_failed', 'Avatar URL can be at most 2,048 characters.', { field: 'avatar_url' });
      if (url && !isHttpsUrl(url)) throw new AppError('validation_failed', 'Avatar URL must be an https:// address.', { field: 'avatar_url' });
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
  return { id: row.id, email: row.email, full_name: row.full_name, avatar_url: row.avatar_url, account_type: row.account_type, role: row.role ?? 'client' };
}

