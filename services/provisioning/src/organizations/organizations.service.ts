import type { Kysely } from 'kysely';
import { AppError, requireUserId, type Caller, type Envelope, type OrganizationRole } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { ProvisioningDatabase } from '../database.ts';
import {
  recordActivated,
  recordRemoved,
  recordSuspended,
  type SuspensionReason,
} from '../device-events/device-events.ts';
import { activePlanOf } from '../entitlements/entitlements.repository.ts';
import {
  comesBackWithOrganization,
  isNewerEvent,
  organizationUsable,
  suspendedOrganization,
} from './org-device-rules.ts';
import { builtOnce, lockName } from '@qw/platform/db';
import { askIdentity } from './owner-answers.ts';

type Db = Kysely<ProvisioningDatabase>;
/** Identity's organization events (libs/contracts identity/organizations.events.ts), as provisioning reads them. */
type MemberChange = Envelope<{ orgId: string; userId: string; role: OrganizationRole }>;
type MemberGone = Envelope<{ orgId: string; userId: string; actorId: string | null }>;
type StatusChange = Envelope<{
  orgId: string;
  isActive: boolean;
  plan: string;
  suspendedByOperator?: boolean | undefined;
}>;

export const organizationNotFound = () => new AppError('not_found', 'Organization not found.');

/**
 * Serializes the changes of one organization's devices and members (adds, quotas, members leaving,
 * suspension): a transaction-scoped advisory lock, so two adds cannot both take the last place.
 */
export async function lockOrganization(tx: Db, orgId: string): Promise<void> {
  await lockName(tx, `organization:${orgId}`);
}

/** The same for a person's organization devices (5 across every organization); always taken after the organization's. */
export async function lockAssignee(tx: Db, userId: string): Promise<void> {
  await lockName(tx, `assignee:${userId}`);
}

export type Membership = {
  role: OrganizationRole;
  orgActive: boolean;
  /** Why it is not Active, as provisioning's copy says ('plan' when only identity's answer knows). */
  suspension: 'operator' | 'plan' | null;
  plan: string | null;
};

/**
 * The member row with its organization's columns (null where the copy does not hold the
 * organization yet): one round trip. Read alone (`membershipRow`, below) and, beside the quota's
 * facts, inside `membershipWithQuotaFacts`.
 */
export function memberRowQuery(db: Db, orgId: string, userId: string) {
  return db
    .selectFrom('org_members')
    .leftJoin('organizations', 'organizations.org_id', 'org_members.org_id')
    .select([
      'org_members.role',
      'org_members.is_member',
      'organizations.is_active',
      'organizations.suspended_by_operator',
      'organizations.plan',
    ])
    .where('org_members.org_id', '=', orgId)
    .where('org_members.user_id', '=', userId);
}

export type MembershipRow = Awaited<ReturnType<ReturnType<typeof memberRowQuery>['executeTakeFirstOrThrow']>>;

/** Built once (`builtOnce`): every organization request asks it first. */
const membershipRow = builtOnce(memberRowQuery);

/**
 * The person's role in the organization, whether it is Active, and its plan, as provisioning's
 * copy of identity's events says. null: not a member, which every caller treats like an
 * organization that does not exist. Reads only local tables, so it belongs inside transactions.
 */
export async function projectedMembership(db: Db, orgId: string, userId: string): Promise<Membership | null> {
  const [row] = await membershipRow(db, orgId, userId);
  return membershipOf(row);
}

/** The membership a member row says (null: not a member, or no row). */
export function membershipOf(row: MembershipRow | null | undefined): Membership | null {
  if (!row?.is_member) return null;
  const suspension = suspensionOf(row);
  return { role: row.role, orgActive: suspension === null, suspension, plan: row.plan };
}

/** Only the person's role, as the copy says (null: not a member), for those who need nothing of the organization. */
export async function projectedRole(db: Db, orgId: string, userId: string): Promise<OrganizationRole | null> {
  const member = await db
    .selectFrom('org_members')
    .select(['role', 'is_member'])
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return member?.is_member ? member.role : null;
}

/**
 * The same, outside a transaction: when the copy does not count the person as a member (they
 * joined a moment ago and identity's event is on its way, or they are not one), identity is asked
 * and its answer kept in the copy, so a refusal is always identity's word.
 */
export async function membershipIn(db: Db, rpc: RpcClient, orgId: string, userId: string): Promise<Membership | null> {
  const projected = await projectedMembership(db, orgId, userId);
  if (projected) return projected;
  await askIdentity(db, rpc, orgId, userId);
  return projectedMembership(db, orgId, userId);
}

/**
 * Read-your-writes (issue #20): the role the copy gives a person now (null: not a member), which
 * the gateway waits on after identity answered a change of it. For the person, or a member (asked
 * of identity when the copy does not know them yet); to anyone else the organization does not exist.
 */
export async function copiedRole(
  db: Db,
  rpc: RpcClient,
  caller: Caller,
  query: { org_id: string; user_id: string },
): Promise<OrganizationRole | null> {
  const callerId = requireUserId(caller);
  if (callerId !== query.user_id && !(await membershipIn(db, rpc, query.org_id, callerId)))
    throw organizationNotFound();
  return projectedRole(db, query.org_id, query.user_id);
}

/**
 * The plan an organization's new or reactivated devices run on, from the copies: refused while it
 * is Suspended (identity's status, with its reason) or no subscription entitles it (billing's).
 */
export async function usableOrganizationPlan(db: Db, orgId: string): Promise<string> {
  const suspension = await organizationSuspension(db, orgId);
  if (suspension) throw suspendedOrganization(suspension);
  const plan = await activePlanOf(db, { userId: null, orgId });
  if (!plan) throw suspendedOrganization();
  return plan;
}

/** Why the organization is Suspended ('operator': the service operator holds it; 'plan'), or null while Active. */
export async function organizationSuspension(db: Db, orgId: string): Promise<'operator' | 'plan' | null> {
  const org = await db
    .selectFrom('organizations')
    .select(['is_active', 'suspended_by_operator'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return suspensionOf(org);
}

/** Null also when the copy holds no row of the organization yet (its columns null from a left join). */
function suspensionOf(
  org: { is_active: boolean | null; suspended_by_operator: boolean | null } | undefined,
): 'operator' | 'plan' | null {
  if (org?.is_active !== false) return null;
  return org.suspended_by_operator ? 'operator' : 'plan';
}

/**
 * Keeps a membership as the newest event says (events of different subjects arrive out of order);
 * answers whether this event was newer than what was known. The organization is locked.
 */
async function keepMembership(
  tx: Db,
  eventId: string,
  change: { orgId: string; userId: string; role: OrganizationRole | null; isMember: boolean },
): Promise<boolean> {
  const known = await tx
    .selectFrom('org_members')
    .select(['role', 'last_event_id'])
    .where('org_id', '=', change.orgId)
    .where('user_id', '=', change.userId)
    .executeTakeFirst();
  if (known && !isNewerEvent(known.last_event_id, eventId)) return false;
  const role = change.role ?? known?.role ?? 'member';
  await tx
    .insertInto('org_members')
    .values({
      org_id: change.orgId,
      user_id: change.userId,
      role,
      is_member: change.isMember,
      last_event_id: eventId,
    })
    .onConflict((oc) =>
      oc.columns(['org_id', 'user_id']).doUpdateSet({ role, is_member: change.isMember, last_event_id: eventId }),
    )
    .execute();
  return true;
}

/** A person joined the organization, or their role in it changed: the membership, with its role, is kept. */
export async function applyMembership(tx: Db, event: MemberChange): Promise<void> {
  const { orgId, userId, role } = event.data;
  await lockOrganization(tx, orgId);
  await keepMembership(tx, event.id, { orgId, userId, role, isMember: true });
}

/**
 * A member left or was removed: their devices in that organization are deleted, their peers leave
 * the nodes and their addresses are free. The removal is recorded as the act of whoever removed
 * them (themselves when they left). An older event than one already applied (they joined again
 * since) changes nothing.
 */
export async function applyMemberLeft(tx: Db, event: MemberGone): Promise<void> {
  const { orgId, userId, actorId } = event.data;
  await lockOrganization(tx, orgId);
  if (!(await keepMembership(tx, event.id, { orgId, userId, role: null, isMember: false }))) return;
  const removed = await tx
    .deleteFrom('devices')
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .returningAll()
    .execute();
  await recordRemoved(tx, removed, actorId);
}

/** Identity says the organization is Suspended (its devices stop) or Active again (those it held come back). */
export async function applyOrganizationStatus(tx: Db, event: StatusChange): Promise<void> {
  const { orgId, isActive, plan } = event.data;
  const suspendedByOperator = event.data.suspendedByOperator ?? false;
  await lockOrganization(tx, orgId);
  const known = await tx
    .selectFrom('organizations')
    .select('last_event_id')
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (known && !isNewerEvent(known.last_event_id, event.id)) return;
  await tx
    .insertInto('organizations')
    .values({
      org_id: orgId,
      is_active: isActive,
      plan,
      last_event_id: event.id,
      suspended_by_operator: suspendedByOperator,
    })
    .onConflict((oc) =>
      oc.column('org_id').doUpdateSet({
        is_active: isActive,
        plan,
        last_event_id: event.id,
        suspended_by_operator: suspendedByOperator,
      }),
    )
    .execute();
  if (isActive) await reactivateOrganizationDevices(tx, orgId);
  else await suspendOrganizationDevices(tx, orgId, 'organization_suspended');
}

/** Every active device of the organization off, remembering why (one update, one outbox insert). */
export async function suspendOrganizationDevices(tx: Db, orgId: string, reason: SuspensionReason): Promise<void> {
  const suspended = await tx
    .updateTable('devices')
    .set({ is_active: false, suspended_reason: reason })
    .where('org_id', '=', orgId)
    .where('is_active', '=', true)
    .returningAll()
    .execute();
  await recordSuspended(tx, suspended, reason, null);
}

/**
 * When the organization is usable again (Active and entitled by its subscription), the devices
 * its suspension held come back with their peers; those their people or managers switched off
 * stay off. Called on either signal, so whichever of identity's status and billing's subscription
 * arrives last brings them back.
 */
export async function reactivateOrganizationDevices(tx: Db, orgId: string): Promise<void> {
  const usable = organizationUsable({
    // Active until identity says otherwise.
    statusActive: (await organizationSuspension(tx, orgId)) === null,
    entitled: (await activePlanOf(tx, { userId: null, orgId })) !== null,
  });
  if (!usable) return;
  const held = (
    await tx
      .selectFrom('devices')
      .select(['id', 'org_id', 'is_active', 'suspended_reason'])
      .where('org_id', '=', orgId)
      .where('is_active', '=', false)
      .execute()
  ).filter(comesBackWithOrganization);
  if (held.length === 0) return;
  const activated = await tx
    .updateTable('devices')
    .set({ is_active: true, suspended_reason: null })
    .where(
      'id',
      'in',
      held.map((device) => device.id),
    )
    .returningAll()
    .execute();
  await recordActivated(tx, activated, null);
}
