import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { listedPersonColumns } from './admin-console.repository.ts';

type Db = Kysely<IdentityDatabase>;

/** How many entries of each audit the person's page shows (the newest). */
export const personAuditLimit = 50;

/** The person with their profile, the admin list's entry for their address and whether two-factor is on. */
export function findPerson(db: Db, userId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('profiles as p', 'p.id', 'u.id')
    .leftJoin('admin_emails as a', 'a.email', 'u.email')
    .select(listedPersonColumns)
    .select(['u.suspended_at', 'u.suspension_reason'])
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
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

/**
 * Sign-ins that can still refresh (a family with a token neither used, revoked nor expired), and
 * when any of the person's sessions last began or refreshed (each refresh writes a token).
 */
export async function sessionsOf(db: Db, userId: string): Promise<{ active: number; lastUsedAt: Date | null }> {
  const row = await db
    .selectFrom('refresh_tokens')
    .select([
      sql<number>`count(distinct family_id) filter (where used_at is null and revoked_at is null and expires_at > now())::int`.as(
        'active',
      ),
      sql<Date | null>`max(created_at)`.as('last_used_at'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return { active: Number(row.active ?? 0), lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null };
}

export function membershipsOf(db: Db, userId: string) {
  return db
    .selectFrom('org_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['o.id', 'o.name', 'm.role', 'm.created_at'])
    .where('m.user_id', '=', userId)
    .orderBy('m.created_at')
    .execute();
}

/** Organizations' audit entries the person did or that are about them, newest first, with the organization's name. */
export function activityAbout(db: Db, userId: string) {
  return db
    .selectFrom('audit_log as l')
    .innerJoin('organizations as o', 'o.id', 'l.org_id')
    .selectAll('l')
    .select('o.name as org_name')
    .where((eb) =>
      eb.or([eb('l.actor_id', '=', userId), eb('l.person_id', '=', userId), eb('l.target_id', '=', userId)]),
    )
    .orderBy('l.at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(personAuditLimit)
    .execute();
}

/** The operators' actions on this person (their entries carry `details.user_id`), newest first. */
export function operatorActionsOn(db: Db, userId: string) {
  return db
    .selectFrom('admin_audit')
    .selectAll()
    .where(sql<boolean>`details->>'user_id' = ${userId}`)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(personAuditLimit)
    .execute();
}
