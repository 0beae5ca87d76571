import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase } from '../database.ts';
import { formerUserName } from './account-deletion-rules.ts';

type Db = Kysely<IdentityDatabase>;

/** The account as its owner exports it. */
export function findAccountForExport(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .innerJoin('profiles', 'profiles.id', 'users.id')
    .leftJoin('mfa_factors', (join) =>
      join.onRef('mfa_factors.user_id', '=', 'users.id').on('mfa_factors.confirmed_at', 'is not', null),
    )
    .select([
      'users.id',
      'users.email',
      'users.created_at',
      'users.email_verified_at',
      'profiles.full_name',
      'profiles.avatar_url',
      'profiles.account_type',
      'mfa_factors.user_id as mfa_user',
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
}

export function membershipsForExport(db: Db, userId: string) {
  return db
    .selectFrom('org_members')
    .innerJoin('organizations', 'organizations.id', 'org_members.org_id')
    .select(['organizations.id', 'organizations.name', 'org_members.role', 'org_members.created_at'])
    .where('org_members.user_id', '=', userId)
    .orderBy('org_members.created_at')
    .execute();
}

/** Audit entries the person did or that are about them (as a member, or their device). */
export function auditEntriesAbout(db: Db, userId: string) {
  return db
    .selectFrom('audit_log')
    .select(['org_id', 'at', 'kind', 'actor_name', 'target_kind', 'target_name'])
    .where((eb) => eb.or([eb('actor_id', '=', userId), eb('person_id', '=', userId), eb('target_id', '=', userId)]))
    .orderBy('at')
    .execute();
}

/** Each organization of the person with what deleting the account must weigh. */
export function membershipsAtDeletion(db: Db, userId: string) {
  return db
    .selectFrom('org_members as mine')
    .innerJoin('organizations', 'organizations.id', 'mine.org_id')
    .select((eb) => [
      'organizations.id',
      'organizations.name',
      'organizations.is_active',
      'mine.role',
      eb
        .selectFrom('org_members')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('org_members.org_id', '=', 'mine.org_id')
        .as('members'),
      eb
        .selectFrom('org_members')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('org_members.org_id', '=', 'mine.org_id')
        .where('org_members.role', '=', 'owner')
        .as('owners'),
    ])
    .where('mine.user_id', '=', userId)
    .execute();
}

/**
 * Erases the person from identity's schema: the account row (its profile, sessions, links,
 * two-factor factors and memberships go with it by foreign key), invitations and contact messages
 * sent to or from the address, and their name and address in organizations' audit logs, which
 * keep what happened under "A former user".
 */
export async function eraseAccount(tx: Db, user: { id: string; email: string }, orgIds: readonly string[]) {
  const former = formerUserName;
  await tx.updateTable('audit_log').set({ actor_name: former }).where('actor_id', '=', user.id).execute();
  await tx.updateTable('audit_log').set({ target_name: former }).where('target_id', '=', user.id).execute();
  // Their devices' names, and their name as an assignee in the entries' details.
  await tx
    .updateTable('audit_log')
    .set({
      target_name: sql<string | null>`case when target_kind = 'device' then null else target_name end`,
      details: sql<string>`case when details ? 'assignee'
        then jsonb_set(details, '{assignee,name}', to_jsonb(${former}::text)) else details end`,
    })
    .where('person_id', '=', user.id)
    .execute();
  await tx
    .updateTable('audit_log')
    .set({ target_name: former })
    .where('target_kind', '=', 'invitation')
    .where('target_name', '=', user.email)
    .execute();
  await tx.deleteFrom('invitations').where('email', '=', user.email).execute();
  await tx.deleteFrom('contact_messages').where('email', '=', user.email).execute();
  if (orgIds.length > 0)
    await tx
      .deleteFrom('organizations')
      .where('id', 'in', [...orgIds])
      .execute();
  await tx.deleteFrom('users').where('id', '=', user.id).execute();
}
