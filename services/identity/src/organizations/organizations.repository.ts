import { sql, type Kysely } from 'kysely';
import type { IdentityDatabase, OrgRole } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

/**
 * Locks the organization's row for the rest of the transaction: every change of its members and
 * invitations takes this lock first, so two sessions inviting and accepting at once are counted
 * one after the other and cannot pass the user cap together.
 */
export function lockOrganization(db: Db, orgId: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).forUpdate().executeTakeFirst();
}

export function findOrganization(db: Db, orgId: string) {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
}

export async function roleOf(db: Db, orgId: string, userId: string): Promise<OrgRole | null> {
  const row = await db
    .selectFrom('org_members')
    .select('role')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

/** Every organization the person belongs to, with their role in it. */
export function membershipsOf(db: Db, userId: string): Promise<Array<{ id: string; role: OrgRole }>> {
  return db.selectFrom('org_members').select(['org_id as id', 'role']).where('user_id', '=', userId).execute();
}

export async function countMembers(db: Db, orgId: string): Promise<{ members: number; owners: number }> {
  const row = await db
    .selectFrom('org_members')
    .select([
      sql<number>`count(*)::int`.as('members'),
      sql<number>`(count(*) filter (where role = 'owner'))::int`.as('owners'),
    ])
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return { members: Number(row.members), owners: Number(row.owners) };
}

export async function countOpenInvitations(db: Db, orgId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('org_id', '=', orgId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Spec §7 list_org_users: user id, full name, e-mail and role; owners first, then admins, then by name. */
export function listUsers(db: Db, orgId: string) {
  return db
    .selectFrom('org_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('profiles as p', 'p.id', 'm.user_id')
    .select(['m.user_id', 'p.full_name', 'u.email', 'm.role'])
    .where('m.org_id', '=', orgId)
    .orderBy(sql`case m.role when 'owner' then 0 when 'admin' then 1 else 2 end`)
    .orderBy(sql`lower(coalesce(p.full_name, u.email))`)
    .orderBy('m.user_id')
    .execute();
}

export function findUser(db: Db, orgId: string, userId: string) {
  return db
    .selectFrom('org_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('profiles as p', 'p.id', 'm.user_id')
    .select(['m.user_id', 'p.full_name', 'u.email', 'm.role'])
    .where('m.org_id', '=', orgId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
}

/** A person as the audit log names them at the time: their full name, else their address. */
export async function personName(db: Db, userId: string | null | undefined): Promise<string | null> {
  if (!userId) return null;
  const row = await db
    .selectFrom('users as u')
    .leftJoin('profiles as p', 'p.id', 'u.id')
    .select(['u.email', 'p.full_name'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row) return null;
  return row.full_name?.trim() || row.email;
}

/** True when the row was inserted (false: already a member). */
export async function insertMember(db: Db, member: { orgId: string; userId: string; role: OrgRole }): Promise<boolean> {
  const inserted = await db
    .insertInto('org_members')
    .values({ org_id: member.orgId, user_id: member.userId, role: member.role })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function setMemberRole(db: Db, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db.updateTable('org_members').set({ role }).where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

export async function deleteMember(db: Db, orgId: string, userId: string): Promise<void> {
  await db.deleteFrom('org_members').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
}

export async function renameOrganization(db: Db, orgId: string, name: string): Promise<void> {
  await db.updateTable('organizations').set({ name }).where('id', '=', orgId).execute();
}

// Invitations

export async function insertInvitation(
  db: Db,
  invitation: {
    id: string;
    orgId: string;
    email: string;
    role: 'admin' | 'member';
    tokenHash: string;
    invitedBy: string;
    expiresAt: Date;
    createdAt: Date;
  },
) {
  return db
    .insertInto('invitations')
    .values({
      id: invitation.id,
      org_id: invitation.orgId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      expires_at: invitation.expiresAt,
      created_at: invitation.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Invitations not yet accepted, revoked or expired, newest first, with the inviter's name. */
export function listOpenInvitations(db: Db, orgId: string, now: Date) {
  return db
    .selectFrom('invitations as i')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .leftJoin('profiles as p', 'p.id', 'i.invited_by')
    .select(['i.id', 'i.email', 'i.role', 'i.created_at', 'i.expires_at', 'u.email as inviter_email', 'p.full_name'])
    .where('i.org_id', '=', orgId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .where('i.expires_at', '>', now)
    .orderBy('i.created_at', 'desc')
    .orderBy('i.id', 'desc')
    .execute();
}

/** Revokes the open invitations `inviterId` sent for the organization; answers those it revoked. */
export function revokeOpenInvitationsBy(db: Db, orgId: string, inviterId: string, now: Date) {
  return db
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('org_id', '=', orgId)
    .where('invited_by', '=', inviterId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'email', 'role'])
    .execute();
}

export function findOpenInvitationFor(db: Db, orgId: string, email: string, now: Date) {
  return db
    .selectFrom('invitations')
    .select('id')
    .where('org_id', '=', orgId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export function findInvitationByTokenHash(db: Db, tokenHash: string) {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function findInvitationForUpdate(db: Db, invitationId: string) {
  return db.selectFrom('invitations').selectAll().where('id', '=', invitationId).forUpdate().executeTakeFirst();
}

export async function markInvitationAccepted(db: Db, invitationId: string, at: Date): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: at }).where('id', '=', invitationId).execute();
}

export async function markInvitationRevoked(db: Db, invitationId: string, at: Date): Promise<void> {
  await db.updateTable('invitations').set({ revoked_at: at }).where('id', '=', invitationId).execute();
}

export async function isMemberByEmail(db: Db, orgId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('org_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.org_id', '=', orgId)
    .where('u.email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

/** The buyer's address, name and account type, for a claim that makes an organization. */
export function findClaimantProfile(db: Db, userId: string) {
  return db
    .selectFrom('profiles')
    .select(['email', 'full_name', 'account_type'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** A new organization; false when one with this id exists already (a claim applied twice). */
export async function insertOrganization(db: Db, org: { id: string; name: string; plan: string }): Promise<boolean> {
  const created = await db
    .insertInto('organizations')
    .values(org)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return created !== undefined;
}

export async function makeBusinessAccount(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('profiles')
    .set({ account_type: 'business', updated_at: sql<Date>`now()` })
    .where('id', '=', userId)
    .execute();
}

/** When billing's newest known state of this subscription happened, or undefined. */
export async function orgSubscriptionUpdatedAt(db: Db, subscriptionId: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('org_subscriptions')
    .select('updated_at')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  return row ? new Date(row.updated_at) : undefined;
}

export async function upsertOrgSubscription(
  db: Db,
  state: { subscriptionId: string; orgId: string; planCode: string; status: string; at: Date },
): Promise<void> {
  const values = { org_id: state.orgId, plan_code: state.planCode, status: state.status, updated_at: state.at };
  await db
    .insertInto('org_subscriptions')
    .values({ subscription_id: state.subscriptionId, ...values })
    .onConflict((oc) => oc.column('subscription_id').doUpdateSet(values))
    .execute();
}

export function listOrgSubscriptions(db: Db, orgId: string) {
  return db
    .selectFrom('org_subscriptions')
    .select(['plan_code', 'status', 'updated_at'])
    .where('org_id', '=', orgId)
    .execute();
}

export async function setStanding(db: Db, orgId: string, next: { is_active: boolean; plan: string }): Promise<void> {
  await db.updateTable('organizations').set(next).where('id', '=', orgId).execute();
}

/** The organizations the person belongs to (or that one), oldest first, with their role and member count. */
export function listMembershipsOf(db: Db, userId: string, orgId?: string) {
  let query = db
    .selectFrom('org_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['o.id', 'o.name', 'o.plan', 'o.is_active', 'o.created_at', 'm.role', 'o.suspension_reason'])
    .select((eb) =>
      eb
        .selectFrom('org_members as all')
        .whereRef('all.org_id', '=', 'o.id')
        .select(sql<number>`count(*)::int`.as('n'))
        .as('member_count'),
    )
    .where('m.user_id', '=', userId);
  if (orgId) query = query.where('o.id', '=', orgId);
  return query.orderBy('o.created_at', 'asc').execute();
}
