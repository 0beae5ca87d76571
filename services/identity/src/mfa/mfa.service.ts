import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { generateSecret, generateURI, verify } from 'otplib';
import { AppError, requireUserId, type Caller } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { hashSecretToken, newSecretToken } from '../accounts/secret-tokens.ts';

export const recoveryCodeCount = 10;
const challengeMinutes = 5;
const challengeAttempts = 5;

/** `xxxxx-xxxxx` from an alphabet without look-alike characters. */
export function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

function normalizeRecoveryCode(code: string): string {
  return code.trim().toLowerCase().replace(/\s+/g, '');
}

/** Two-factor sign-in with an authenticator app (TOTP, 30 s steps, one step of drift either way). */
export class MfaService {
  constructor(private readonly db: Kysely<IdentityDatabase>) {}

  async isEnabled(userId: string): Promise<boolean> {
    const row = await this.db.selectFrom('mfa_factors').select('confirmed_at').where('user_id', '=', userId).executeTakeFirst();
    return Boolean(row?.confirmed_at);
  }

  async enrol(caller: Caller): Promise<{ secret: string; otpauth_url: string }> {
    const userId = requireUserId(caller);
    if (await this.isEnabled(userId)) throw new AppError('conflict', 'Two-factor sign-in is already on. Turn it off first to set up a new app.');
    const user = await this.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    const secret = generateSecret();
    await this.db.insertInto('mfa_factors').values({ user_id: userId, secret, confirmed_at: null, last_used_step: null })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret, confirmed_at: null, last_used_step: null, created_at: sql<Date>`now()` }))
      .execute();
    return { secret, otpauth_url: generateURI({ issuer: 'Quietwire', label: user.email, secret }) };
  }

  async confirm(caller: Caller, code: string): Promise<{ recovery_codes: string[] }> {
    const userId = requireUserId(caller);
    return this.db.transaction().execute(async (tx) => {
      const factor = await tx.selectFrom('mfa_factors').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
      if (!factor) throw new AppError('not_found', 'Start the set-up first: scan the QR code, then enter the code your app shows.');
      if (factor.confirmed_at) throw new AppError('conflict', 'Two-factor sign-in is already on.');
      const step = await this.checkTotp(factor.secret, code);
      if (step === null) throw new AppError('validation_failed', 'That code is not right. Enter the 6-digit code your app shows now.', { field: 'code' });
      await tx.updateTable('mfa_factors').set({ confirmed_at: sql<Date>`now()`, last_used_step: step }).where('user_id', '=', userId).execute();
      const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
      await tx.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
      await tx.insertInto('mfa_recovery_codes').values(codes.map((c) => ({ code_hash: hashSecretToken(c), user_id: userId, used_at: null }))).execute();
      return { recovery_codes: codes };
    });
  }

  async disable(caller: Caller, code: string): Promise<void> {
    const userId = requireUserId(caller);
    await this.db.transaction().execute(async (tx) => {
      if (!(await this.acceptCode(tx, userId, code))) {
        throw new AppError('validation_failed', 'That code is not right. Enter a code from your app or a recovery code.', { field: 'code' });
      }
      await tx.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
      await tx.deleteFrom('mfa_factors').where('user_id', '=', userId).execute();
    });
  }

  /** After a correct password: a short-lived token that only a second factor turns into a session. */
  async startChallenge(userId: string): Promise<string> {
    const token = newSecretToken();
    await this.db.insertInto('mfa_challenges').values({ token_hash: hashSecretToken(token), user_id: userId, expires_at: new Date(Date.now() + challengeMinutes * 60_000) }).execute();
    return token;
  }

  async completeChallenge(mfaToken: string, code: string): Promise<string> {
    const tokenHash = hashSecretToken(mfaToken);
    const outcome = await this.db.transaction().execute(async (tx) => {
      const challenge = await tx.selectFrom('mfa_challenges').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
      if (!challenge || new Date(challenge.expires_at).getTime() <= Date.now() || challenge.attempts >= challengeAttempts) {
        return { error: new AppError('invalid_token', 'This sign-in has timed out. Enter your email and password again.') };
      }
      if (await this.acceptCode(tx, challenge.user_id, code)) {
        await tx.deleteFrom('mfa_challenges').where('token_hash', '=', tokenHash).execute();
        return { userId: challenge.user_id };
      }
      await tx.updateTable('mfa_challenges').set({ attempts: sql<number>`attempts + 1` }).where('token_hash', '=', tokenHash).execute();
      return { error: new AppError('validation_failed', 'That code is not right. Enter the code your app shows now, or a recovery code.', { field: 'code' }) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.userId;
  }

  /** A current TOTP code not used before, or an unused recovery code (which is then spent). */
  private async acceptCode(tx: Kysely<IdentityDatabase>, userId: string, code: string): Promise<boolean> {
    const factor = await tx.selectFrom('mfa_factors').selectAll().where('user_id', '=', userId).where('confirmed_at', 'is not', null).forUpdate().executeTakeFirst();
    if (!factor) return false;
    const digits = code.replace(/\s+/g, '');
    if (/^\d{6}$/.test(digits)) {
      const step = await this.checkTotp(factor.secret, digits);
      if (step === null || (factor.last_used_step !== null && step <= Number(factor.last_used_step))) return false;
      await tx.updateTable('mfa_factors').set({ last_used_step: step }).where('user_id', '=', userId).execute();
      return true;
    }
    const spent = await tx.updateTable('mfa_recovery_codes').set({ used_at: sql<Date>`now()` })
      .where('user_id', '=', userId).where('code_hash', '=', hashSecretToken(normalizeRecoveryCode(code))).where('used_at', 'is', null)
      .returning('code_hash').executeTakeFirst();
    return spent !== undefined;
  }

  private async checkTotp(secret: string, code: string): Promise<number | null> {
    if (!/^\d{6}$/.test(code.trim())) return null;
    const result = await verify({ secret, token: code.trim(), epochTolerance: 30 });
    return result.valid ? (result as { timeStep: number }).timeStep : null;
  }
}
