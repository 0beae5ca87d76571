import { sql, type Kysely } from 'kysely';
import { generateSecret, generateURI } from 'otplib';
import { AppError, requireUserId, type Caller, type IssuedSession } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { isTwoFactorEnabled, revokeAllSessions } from '../accounts/accounts.repository.ts';
import { secondFactorChecks, secondFactorKey } from '../accounts/rate-limits.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';
import { clearRateEvents, takeRateLimited } from '@qw/platform/limits';
import { isUnspentStep, matchingTotpStep, newRecoveryCode, normalizeRecoveryCode, totpDigits } from './totp.ts';

export const recoveryCodeCount = 10;
const challengeMinutes = 5;
const challengeAttempts = 5;

/** Two-factor sign-in with an authenticator app (TOTP, 30 s steps, one step of drift either way). */
export class MfaService {
  constructor(private readonly db: Kysely<IdentityDatabase>) {}

  isEnabled(userId: string): Promise<boolean> {
    return isTwoFactorEnabled(this.db, userId);
  }

  async enrol(caller: Caller): Promise<{ secret: string; otpauth_url: string }> {
    const userId = requireUserId(caller);
    if (await this.isEnabled(userId))
      throw new AppError('conflict', 'Two-factor sign-in is already on. Turn it off first to set up a new app.');
    const user = await this.verifiedUser(this.db, userId);
    const secret = generateSecret();
    await this.db
      .insertInto('mfa_factors')
      .values({ user_id: userId, secret, confirmed_at: null, last_used_step: null })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ secret, confirmed_at: null, last_used_step: null, created_at: sql<Date>`now()` }),
      )
      .execute();
    return { secret, otpauth_url: generateURI({ issuer: 'Quietwire', label: user.email, secret }) };
  }

  /**
   * Turns two-factor sign-in on. Every session of the account began without the second factor, so
   * all of them end (a stolen one must not outlive this); `startSession` begins the one for the
   * person who has just proved the factor with the code.
   */
  async confirm(
    caller: Caller,
    code: string,
    startSession: (tx: Kysely<IdentityDatabase>, userId: string) => Promise<IssuedSession>,
  ): Promise<{ recovery_codes: string[]; session: IssuedSession }> {
    const userId = requireUserId(caller);
    return this.db.transaction().execute(async (tx) => {
      await this.verifiedUser(tx, userId);
      const factor = await tx
        .selectFrom('mfa_factors')
        .selectAll()
        .where('user_id', '=', userId)
        .forUpdate()
        .executeTakeFirst();
      if (!factor)
        throw new AppError(
          'not_found',
          'Start the set-up first: scan the QR code, then enter the code your app shows.',
        );
      if (factor.confirmed_at) throw new AppError('conflict', 'Two-factor sign-in is already on.');
      const step = await matchingTotpStep(factor.secret, code);
      if (step === null)
        throw new AppError('validation_failed', 'That code is not right. Enter the 6-digit code your app shows now.', {
          field: 'code',
        });
      await tx
        .updateTable('mfa_factors')
        .set({ confirmed_at: sql<Date>`now()`, last_used_step: step })
        .where('user_id', '=', userId)
        .execute();
      const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
      await tx.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('mfa_recovery_codes')
        .values(codes.map((c) => ({ code_hash: hashSecretToken(c), user_id: userId, used_at: null })))
        .execute();
      await revokeAllSessions(tx, userId);
      return { recovery_codes: codes, session: await startSession(tx, userId) };
    });
  }

  async disable(caller: Caller, code: string): Promise<void> {
    const userId = requireUserId(caller);
    const outcome = await this.db.transaction().execute(async (tx) => {
      if (!(await this.spendCode(tx, userId, code))) {
        return {
          error: new AppError(
            'validation_failed',
            'That code is not right. Enter a code from your app or a recovery code.',
            {
              field: 'code',
            },
          ),
        };
      }
      await tx.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
      await tx.deleteFrom('mfa_factors').where('user_id', '=', userId).execute();
      return {};
    });
    if (outcome.error) throw outcome.error;
  }

  /**
   * Two-factor sign-in protects an account of the person who holds the address; on an address
   * nobody has proved, it could lock the real owner out of an account made in their name.
   */
  private async verifiedUser(db: Kysely<IdentityDatabase>, userId: string) {
    const user = await db
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw new AppError('not_signed_in', 'Not signed in');
    if (user.email_verified_at === null)
      throw new AppError(
        'email_unverified',
        'Confirm your email address before turning on two-factor sign-in: open the link we sent you.',
      );
    return user;
  }

  /** After a correct password: a short-lived token that only a second factor turns into a session. */
  async startChallenge(userId: string): Promise<string> {
    const token = newSecretToken();
    await this.db
      .insertInto('mfa_challenges')
      .values({
        token_hash: hashSecretToken(token),
        user_id: userId,
        expires_at: new Date(Date.now() + challengeMinutes * 60_000),
      })
      .execute();
    return token;
  }

  async completeChallenge(mfaToken: string, code: string): Promise<string> {
    const tokenHash = hashSecretToken(mfaToken);
    const outcome = await this.db.transaction().execute(async (tx) => {
      const challenge = await tx
        .selectFrom('mfa_challenges')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .forUpdate()
        .executeTakeFirst();
      if (
        !challenge ||
        new Date(challenge.expires_at).getTime() <= Date.now() ||
        challenge.attempts >= challengeAttempts
      ) {
        return {
          error: new AppError('invalid_token', 'This sign-in has timed out. Enter your email and password again.'),
        };
      }
      if (await this.spendCode(tx, challenge.user_id, code)) {
        await tx.deleteFrom('mfa_challenges').where('token_hash', '=', tokenHash).execute();
        return { userId: challenge.user_id };
      }
      await tx
        .updateTable('mfa_challenges')
        .set({ attempts: sql<number>`attempts + 1` })
        .where('token_hash', '=', tokenHash)
        .execute();
      return {
        error: new AppError(
          'validation_failed',
          'That code is not right. Enter the code your app shows now, or a recovery code.',
          { field: 'code' },
        ),
      };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.userId;
  }

  /**
   * A code offered for the account, counted across challenges: refused with 429 while the account
   * must wait; each code counts as wrong before it is checked, so parallel guesses cannot all pass
   * the same count (committed with the caller's transaction, which must not roll back on a wrong
   * code), and a right one clears the count.
   */
  private async spendCode(tx: Kysely<IdentityDatabase>, userId: string, code: string): Promise<boolean> {
    await takeRateLimited(tx, secondFactorChecks(userId), (wait) => `Too many wrong codes. Try again in ${wait}.`);
    const accepted = await this.acceptCode(tx, userId, code);
    if (accepted) await clearRateEvents(tx, secondFactorKey(userId));
    return accepted;
  }

  /** A current TOTP code not used before, or an unused recovery code (which is then spent). */
  private async acceptCode(tx: Kysely<IdentityDatabase>, userId: string, code: string): Promise<boolean> {
    const factor = await tx
      .selectFrom('mfa_factors')
      .selectAll()
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is not', null)
      .forUpdate()
      .executeTakeFirst();
    if (!factor) return false;
    if (totpDigits(code)) {
      const lastUsed = factor.last_used_step === null ? null : Number(factor.last_used_step);
      const step = await matchingTotpStep(factor.secret, code);
      if (step === null || !isUnspentStep(step, lastUsed)) return false;
      await tx.updateTable('mfa_factors').set({ last_used_step: step }).where('user_id', '=', userId).execute();
      return true;
    }
    const spent = await tx
      .updateTable('mfa_recovery_codes')
      .set({ used_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('code_hash', '=', hashSecretToken(normalizeRecoveryCode(code)))
      .where('used_at', 'is', null)
      .returning('code_hash')
      .executeTakeFirst();
    return spent !== undefined;
  }
}
