import { sql, type Kysely } from 'kysely';
import type { EmailTokenPurpose, IdentityDatabase } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findUserById(db: Db, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findProfile(db: Db, id: string) {
  return db.selectFrom('profiles').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function isOrgMember(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('org_members')
    .select('org_id')
    .where('user_id', '=', userId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertUserWithProfile(
  db: Db,
  user: {
    id: string;
    email: string;
    passwordHash: string;
    /** The demo history's accounts only: made on a past day, their address confirmed then. */
    createdAt?: Date;
    emailVerifiedAt?: Date;
    fullName?: string | null;
    /** A test account from the start (issue #26: a reserved test domain while MARK_TEST_ACCOUNTS is on). */
    isTest?: boolean;
  },
): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({
      id: user.id,
      email: user.email,
      password_hash: user.passwordHash,
      ...(user.createdAt ? { created_at: user.createdAt } : {}),
      ...(user.emailVerifiedAt ? { email_verified_at: user.emailVerifiedAt } : {}),
      ...(user.isTest ? { is_test: true } : {}),
    })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  await db
    .insertInto('profiles')
    .values({ id: user.id, email: user.email, full_name: user.fullName ?? null, avatar_url: null, role: null })
    .execute();
  return true;
}

export async function isTwoFactorEnabled(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('mfa_factors')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertRefreshToken(
  db: Db,
  token: { tokenHash: string; familyId: string; userId: string; expiresAt: Date; twoFactor: boolean },
): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({
      token_hash: token.tokenHash,
      family_id: token.familyId,
      user_id: token.userId,
      expires_at: token.expiresAt,
      two_factor: token.twoFactor,
    })
    .execute();
}

/** Locks the token's row so two refreshes with the same token cannot both succeed. */
export function findRefreshTokenForUpdate(db: Db, tokenHash: string) {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst();
}

/** The sign-in a refresh token belongs to (used, expired or revoked alike), or undefined. */
export async function findRefreshTokenFamily(db: Db, tokenHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('refresh_tokens')
    .select('family_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row?.family_id;
}

export async function markRefreshTokenUsed(db: Db, tokenHash: string): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ used_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .execute();
}

export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: sql<Date>`now()` })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeAllSessions(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertEmailToken(
  db: Db,
  token: { tokenHash: string; purpose: EmailTokenPurpose; userId: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('email_tokens')
    .values({ token_hash: token.tokenHash, purpose: token.purpose, user_id: token.userId, expires_at: token.expiresAt })
    .execute();
}

export function findEmailTokenForUpdate(db: Db, tokenHash: string, purpose: EmailTokenPurpose) {
  return db
    .selectFrom('email_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .forUpdate()
    .executeTakeFirst();
}

export async function useEmailToken(db: Db, tokenHash: string): Promise<void> {
  await db.updateTable('email_tokens').set({ used_at: sql<Date>`now()` }).where('token_hash', '=', tokenHash).execute();
}

/** A newer link replaces the older ones of the same purpose. */
export async function expireEmailTokens(db: Db, userId: string, purpose: EmailTokenPurpose): Promise<void> {
  await db
    .updateTable('email_tokens')
    .set({ expires_at: sql<Date>`now()` })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .execute();
}

/** True when the address was not verified before (the caller announces it). */
export async function setEmailVerified(db: Db, userId: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ email_verified_at: sql<Date>`now()` })
    .where('id', '=', userId)
    .where('email_verified_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function updateProfileFields(
  db: Db,
  userId: string,
  fields: { full_name?: string | null; avatar_url?: string | null },
) {
  return db
    .updateTable('profiles')
    .set({ ...fields, updated_at: sql<Date>`now()` })
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The environment's admin list at start: listed addresses are admins; environment rows no longer
 * listed lose the rights. Rows operators added (`source` operator) are never touched, and an
 * address an operator already holds stays theirs.
 */
export async function syncAdminEmails(db: Db, emails: readonly string[]): Promise<void> {
  if (emails.length > 0) {
    await db
      .insertInto('admin_emails')
      .values(emails.map((email) => ({ email, is_admin: true, role: 'admin', source: 'environment' as const })))
      .onConflict((oc) =>
        oc
          .column('email')
          .doUpdateSet({ is_admin: true, role: 'admin' })
          .where('admin_emails.source', '=', 'environment'),
      )
      .execute();
  }
  let stale = db
    .updateTable('admin_emails')
    .set({ is_admin: false, role: null })
    .where('source', '=', 'environment')
    .where((eb) => eb.or([eb('is_admin', '=', true), eb('role', 'is not', null)]));
  if (emails.length > 0) stale = stale.where('email', 'not in', emails);
  await stale.execute();
}

/**
 * What a person's rights are decided from, in one query (the gateway asks it for every signed-in
 * person once a second): the account, its profile, its admin-list entry and whether two-factor
 * sign-in is on. Undefined when the account is gone. With `sessionId`, also whether that session
 * (a refresh-token family of the person's) is still going.
 */
export function findAuthorityFacts(db: Db, userId: string, sessionId?: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('profiles as p', 'p.id', 'u.id')
    .leftJoin('admin_emails as a', 'a.email', 'u.email')
    .select([
      'u.email',
      'u.email_verified_at',
      'p.role',
      'p.account_type',
      'a.is_admin as list_is_admin',
      'a.role as list_role',
    ])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('mfa_factors as f')
            .select('f.user_id')
            .whereRef('f.user_id', '=', 'u.id')
            .where('f.confirmed_at', 'is not', null),
        )
        .as('two_factor'),
    )
    .select((eb) =>
      (sessionId === undefined
        ? eb.val(true)
        : eb.exists(
            eb
              .selectFrom('refresh_tokens as r')
              .select('r.family_id')
              .where('r.family_id', '=', sessionId)
              .whereRef('r.user_id', '=', 'u.id')
              .where('r.revoked_at', 'is', null)
              .where('r.expires_at', '>', new Date()),
          )
      ).as('session_alive'),
    )
    .where('u.id', '=', userId)
    .executeTakeFirst();
}
