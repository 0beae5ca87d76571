import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { AppError, requireUserId, type Caller, type IssuedSession, type SessionUser } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import * as repo from '../accounts/accounts.repository.ts';
import { readAccess } from '../accounts/read-authority.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';

export const refreshTokenDays = 30;

export const sessionEnded = () => new AppError('invalid_token', 'Your session has ended. Please sign in again.');

/**
 * Sessions: refresh-token families (one per sign-in, rotated on each refresh, ended together when
 * a rotated token comes back) and the rights a session carries, decided now from the database.
 */
export class SessionsService {
  constructor(private readonly deps: { db: Kysely<IdentityDatabase>; logger: Logger }) {}

  /**
   * The person as a session carries them, with rights decided by the one rule (contracts'
   * `resolveAccess`) from what the database says now and whether this session passed the second
   * factor.
   */
  async sessionUser(db: Kysely<IdentityDatabase>, userId: string, twoFactorPassed: boolean): Promise<SessionUser> {
    const read = await readAccess(db, userId, { twoFactorPassed });
    if (!read) throw sessionEnded();
    return {
      id: userId,
      email: read.facts.email,
      account_type: read.facts.account_type,
      role: read.access.role,
      is_admin: read.access.isAdmin,
      email_verified: read.facts.email_verified_at !== null,
    };
  }

  /**
   * Admin rights for a request, checked against the database now. Whether the session passed the
   * second factor is known only from its access token, whose admin claim already required it: a
   * caller whose token does not say admin is not one; one whose token does must still be one now.
   */
  async adminStatus(caller: Caller): Promise<{ is_admin: boolean }> {
    const userId = requireUserId(caller);
    if (!caller.isAdmin) return { is_admin: false };
    const read = await readAccess(this.deps.db, userId, { twoFactorPassed: true });
    return { is_admin: read?.access.isAdmin === true };
  }

  /** A new refresh-token family: one per sign-in. */
  async issueSession(
    db: Kysely<IdentityDatabase>,
    userId: string,
    options: { familyId?: string; twoFactorPassed?: boolean } = {},
  ): Promise<IssuedSession> {
    const token = newSecretToken();
    const expiresAt = new Date(Date.now() + refreshTokenDays * 24 * 3600 * 1000);
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

  async refresh(refreshToken: string): Promise<IssuedSession> {
    const tokenHash = hashSecretToken(refreshToken);
    const outcome = await this.deps.db.transaction().execute(async (tx) => {
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
    const familyId = await repo.findRefreshTokenFamily(this.deps.db, hashSecretToken(refreshToken));
    if (familyId) await repo.revokeFamily(this.deps.db, familyId);
  }
}
