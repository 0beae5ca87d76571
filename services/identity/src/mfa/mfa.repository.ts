import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

/** A new factor waiting for its first code, replacing one never confirmed. */
export async function upsertPendingFactor(db: Db, userId: string, secret: string): Promise<void> {
  await db
    .insertInto('mfa_factors')
    .values({ user_id: userId, secret, confirmed_at: null, last_used_step: null })
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({ secret, confirmed_at: null, last_used_step: null, created_at: sql<Date>`now()` }),
    )
    .execute();
}

/** The account's factor, locked; `confirmedOnly` leaves out one still being set up. */
export function findFactorForUpdate(db: Db, userId: string, options: { confirmedOnly?: boolean } = {}) {
  let query = db.selectFrom('mfa_factors').selectAll().where('user_id', '=', userId);
  if (options.confirmedOnly) query = query.where('confirmed_at', 'is not', null);
  return query.forUpdate().executeTakeFirst();
}

export async function confirmFactor(db: Db, userId: string, step: number): Promise<void> {
  await db
    .updateTable('mfa_factors')
    .set({ confirmed_at: sql<Date>`now()`, last_used_step: step })
    .where('user_id', '=', userId)
    .execute();
}

export async function setLastUsedStep(db: Db, userId: string, step: number): Promise<void> {
  await db.updateTable('mfa_factors').set({ last_used_step: step }).where('user_id', '=', userId).execute();
}

/** The account's recovery codes are these (hashed) from now on; older ones are gone. */
export async function replaceRecoveryCodes(db: Db, userId: string, codeHashes: readonly string[]): Promise<void> {
  await db.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('mfa_recovery_codes')
    .values(codeHashes.map((code_hash) => ({ code_hash, user_id: userId, used_at: null })))
    .execute();
}

/** Spends an unused recovery code; false when there is no such code. */
export async function spendRecoveryCode(db: Db, userId: string, codeHash: string): Promise<boolean> {
  const spent = await db
    .updateTable('mfa_recovery_codes')
    .set({ used_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returning('code_hash')
    .executeTakeFirst();
  return spent !== undefined;
}

/** Two-factor sign-in off: the factor and its recovery codes go. */
export async function deleteFactor(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('mfa_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('mfa_factors').where('user_id', '=', userId).execute();
}

export async function insertChallenge(db: Db, challenge: { tokenHash: string; userId: string; expiresAt: Date }) {
  await db
    .insertInto('mfa_challenges')
    .values({ token_hash: challenge.tokenHash, user_id: challenge.userId, expires_at: challenge.expiresAt })
    .execute();
}

export function findChallengeForUpdate(db: Db, tokenHash: string) {
  return db.selectFrom('mfa_challenges').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
}

export async function deleteChallenge(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('mfa_challenges').where('token_hash', '=', tokenHash).execute();
}

export async function countWrongCode(db: Db, tokenHash: string): Promise<void> {
  await db
    .updateTable('mfa_challenges')
    .set({ attempts: sql<number>`attempts + 1` })
    .where('token_hash', '=', tokenHash)
    .execute();
}
