import type { Kysely } from 'kysely';
import { generateSecret, generateURI } from 'otplib';
import { AppError, requireUserId, type Caller, type IssuedSession } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { findUserById, isTwoFactorEnabled, revokeAllSessions } from '../accounts/accounts.repository.ts';
import { secondFactorChecks, secondFactorKey } from '../accounts/rate-limits.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';
import { clearRateEvents, takeRateLimited } from '@qw/platform/limits';
import { isUnspentStep, matchingTotpStep, newRecoveryCode, normalizeRecoveryCode, totpDigits } from './totp.ts';
import { challengeMinutes, challengeOpen, recoveryCodeCount } from './mfa-rules.ts';
import * as repo from './mfa.repository.ts';

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
    await repo.upsertPendingFactor(this.db, userId, secret);
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
      const factor = await repo.findFactorForUpdate(tx, userId);
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
      await repo.confirmFactor(tx, userId, step);
      const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
      await repo.replaceRecoveryCodes(tx, userId, codes.map(hashSecretToken));
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
      await repo.deleteFactor(tx, userId);
      return {};
    });
    if (outcome.error) throw outcome.error;
  }

  /**
   * Two-factor sign-in protects an account of the person who holds the address; on an address
   * nobody has proved, it could lock the real owner out of an account made in their name.
   */
  private async verifiedUser(db: Kysely<IdentityDatabase>, userId: string) {
    const user = await findUserById(db, userId);
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
    await repo.insertChallenge(this.db, {
      tokenHash: hashSecretToken(token),
      userId,
      expiresAt: new Date(Date.now() + challengeMinutes * 60_000),
    });
    return token;
  }

  async completeChallenge(mfaToken: string, code: string): Promise<string> {
    const tokenHash = hashSecretToken(mfaToken);
    const outcome = await this.db.transaction().execute(async (tx) => {
      const challenge = await repo.findChallengeForUpdate(tx, tokenHash);
      if (!challenge || !challengeOpen(challenge)) {
        return {
          error: new AppError('invalid_token', 'This sign-in has timed out. Enter your email and password again.'),
        };
      }
      if (await this.spendCode(tx, challenge.user_id, code)) {
        await repo.deleteChallenge(tx, tokenHash);
        return { userId: challenge.user_id };
      }
      await repo.countWrongCode(tx, tokenHash);
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
    const factor = await repo.findFactorForUpdate(tx, userId, { confirmedOnly: true });
    if (!factor) return false;
    if (totpDigits(code)) {
      const lastUsed = factor.last_used_step === null ? null : Number(factor.last_used_step);
      const step = await matchingTotpStep(factor.secret, code);
      if (step === null || !isUnspentStep(step, lastUsed)) return false;
      await repo.setLastUsedStep(tx, userId, step);
      return true;
    }
    return repo.spendRecoveryCode(tx, userId, hashSecretToken(normalizeRecoveryCode(code)));
  }
}
