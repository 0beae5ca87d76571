import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { activePlanRpc, membershipRpc } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { ProvisioningDatabase } from '../database.ts';
import {
  answeredBeforeAnyEvent,
  entitlementCorrection,
  mayBeBehindOwner,
  memberCorrection,
  organizationCorrection,
} from './owner-answer-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * Read-your-writes (issue #20; docs/architecture.md "Organizations"): `work` decides on
 * provisioning's copies inside its own transaction. When it refuses in a way a copy behind its
 * owner can cause, `ask` asks the owners (between transactions, never inside one) and corrects the
 * copies; if the owners said anything the copies did not, `work` runs once more on the corrected
 * copies. Otherwise the first refusal stands, also when an owner cannot be asked. `mayBeBehind`
 * says which refusals are worth asking about (by default every one a copy behind can cause).
 */
export async function afterAskingOwners<T>(
  work: () => Promise<T>,
  ask: () => Promise<boolean>,
  logger?: Logger,
  mayBeBehind: (refusal: unknown) => boolean = mayBeBehindOwner,
): Promise<T> {
  try {
    return await work();
  } catch (refusal) {
    if (!mayBeBehind(refusal)) throw refusal;
    let corrected: boolean;
    try {
      corrected = await ask();
    } catch (error) {
      logger?.warn({ err: error }, 'an owner could not be asked; the refusal of the local copy stands');
      throw refusal;
    }
    if (!corrected) throw refusal;
    return work();
  }
}

/**
 * Asks identity about these people in the organization (and the organization's standing) and
 * billing about its plan, and keeps what they say in the copies. Answers whether they said anything
 * the copies did not (kept by this, or by an event that came meanwhile and is newer).
 */
export async function askOrganizationOwners(
  db: Db,
  rpc: RpcClient,
  orgId: string,
  userIds: readonly string[],
): Promise<boolean> {
  const people = [...new Set(userIds)];
  const changes = await Promise.all([
    ...people.map((userId) => askIdentity(db, rpc, orgId, userId)),
    askBilling(db, rpc, { userId: null, orgId }),
  ]);
  return changes.includes(true);
}

/** Asks billing which plan entitles the owner (a person's personal plan, or an organization's) and keeps it. */
export async function askBilling(
  db: Db,
  rpc: RpcClient,
  owner: { userId: string | null; orgId: string | null },
): Promise<boolean> {
  const mine = owner.orgId
    ? db.selectFrom('entitlements').where('org_id', '=', owner.orgId)
    : db.selectFrom('entitlements').where('user_id', '=', owner.userId).where('org_id', 'is', null);
  // Read before asking: a row an event changed meanwhile is newer than the answer and stays.
  const before = await mine.select(['subscription_id', 'plan_code', 'status', 'updated_at']).execute();
  const { plan } = await rpc.request(
    activePlanRpc,
    owner.orgId ? { org_id: owner.orgId } : { user_id: owner.userId ?? undefined },
  );
  const known = before.find((row) => row.subscription_id === plan?.subscription_id);
  const correction = entitlementCorrection(known, plan);
  if (!correction) return false;
  if (!known) {
    // Older than any event of billing's (compared by occurredAt), so the next one applies over it.
    await db
      .insertInto('entitlements')
      .values({
        subscription_id: correction.subscription_id,
        user_id: owner.orgId ? null : owner.userId,
        org_id: owner.orgId,
        plan_code: correction.plan_code,
        status: correction.status,
        updated_at: new Date(0),
      })
      .onConflict((oc) => oc.column('subscription_id').doNothing())
      .execute();
    return true;
  }
  await db
    .updateTable('entitlements')
    .set({ plan_code: correction.plan_code, status: correction.status })
    .where('subscription_id', '=', correction.subscription_id)
    .where('updated_at', '=', known.updated_at)
    .execute();
  return true;
}

/** Asks identity about one person in the organization and keeps the membership and the organization's standing. */
export async function askIdentity(db: Db, rpc: RpcClient, orgId: string, userId: string): Promise<boolean> {
  const member = await db
    .selectFrom('org_members')
    .select(['role', 'is_member', 'last_event_id'])
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const org = await db
    .selectFrom('organizations')
    .select(['is_active', 'plan', 'suspended_by_operator', 'last_event_id'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  const answer = await rpc.request(membershipRpc, { org_id: orgId, user_id: userId });
  const membership = memberCorrection(member, answer);
  if (membership && !member) {
    await db
      .insertInto('org_members')
      .values({ org_id: orgId, user_id: userId, ...membership, last_event_id: answeredBeforeAnyEvent })
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
      .execute();
  } else if (membership && member) {
    // Only over the row as it was read: an event applied meanwhile is newer than this answer.
    await db
      .updateTable('org_members')
      .set(membership)
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .where('last_event_id', '=', member.last_event_id)
      .execute();
  }

  const standing = organizationCorrection(org, answer);
  if (standing && !org) {
    await db
      .insertInto('organizations')
      .values({ org_id: orgId, ...standing, last_event_id: answeredBeforeAnyEvent })
      .onConflict((oc) => oc.column('org_id').doNothing())
      .execute();
  } else if (standing && org) {
    await db
      .updateTable('organizations')
      .set(standing)
      .where('org_id', '=', orgId)
      .where('last_event_id', '=', org.last_event_id)
      .execute();
  }
  return membership !== null || standing !== null;
}
