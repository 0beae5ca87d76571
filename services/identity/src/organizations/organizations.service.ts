import { sql, type Kysely } from 'kysely';
import { findPlan, profileUpdated, type Envelope } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { IdentityDatabase } from '../database.ts';

/** A first name for a new organization, which its owner can change: "Ada's team". */
export function defaultOrganizationName(email: string, fullName: string | null): string {
  const base = fullName?.trim().split(/\s+/)[0] || email.split('@')[0] || 'My';
  const name = base.charAt(0).toUpperCase() + base.slice(1);
  return `${name}'s team`.slice(0, 100);
}

type Claimed = { userId: string; planCode: string; accountType: 'personal' | 'business'; orgId: string | null };

/**
 * A purchase was claimed. Business plans make the buyer a business account and the owner of a
 * new organization on that plan; applying the same claim twice changes nothing more.
 */
export async function applyPurchaseClaim(tx: Kysely<IdentityDatabase>, event: Envelope<Claimed>): Promise<void> {
  const { userId, accountType, orgId, planCode } = event.data;
  if (accountType !== 'business' || !orgId) return;
  const profile = await tx.selectFrom('profiles').select(['email', 'full_name', 'account_type']).where('id', '=', userId).executeTakeFirst();
  if (!profile) throw new Error(`claim for an unknown user ${userId}`);
  await tx.insertInto('organizations').values({ id: orgId, name: defaultOrganizationName(profile.email, profile.full_name), plan: findPlan(planCode)?.code ?? planCode })
    .onConflict((oc) => oc.column('id').doNothing()).execute();
  await tx.insertInto('org_members').values({ org_id: orgId, user_id: userId, role: 'owner' })
    .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing()).execute();
  if (profile.account_type !== 'business' && profile.account_type !== 'admin') {
    await tx.updateTable('profiles').set({ account_type: 'business', updated_at: sql<Date>`now()` }).where('id', '=', userId).execute();
    await addToOutbox(tx, profileUpdated, { userId, fields: ['account_type'] });
  }
}

/** The organizations the person belongs to, with their role and the member count. */
export async function listOrganizationsOf(db: Kysely<IdentityDatabase>, userId: string) {
  const rows = await db.selectFrom('org_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['o.id', 'o.name', 'o.plan', 'o.is_active', 'o.created_at', 'm.role'])
    .select((eb) => eb.selectFrom('org_members as all').whereRef('all.org_id', '=', 'o.id').select(sql<number>`count(*)::int`.as('n')).as('member_count'))
    .where('m.user_id', '=', userId)
    .orderBy('o.created_at', 'asc')
    .execute();
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString(), member_count: Number(row.member_count ?? 0) }));
}
