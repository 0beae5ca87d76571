import type { Kysely, Transaction } from 'kysely';
import {
  AppError,
  organizationManagerActions,
  deviceCapOf,
  findPlan,
  memberJoined,
  normalizeOrganizationName,
  organizationNameProblem,
  organizationStatus,
  organizationStatusChanged,
  profileUpdated,
  requireUserId,
  userCapOf,
  type Caller,
  type Envelope,
  type OrganizationDetail,
  type OrganizationView,
} from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { IdentityDatabase, OrgRole } from '../database.ts';
import { addAuditEntry } from '../audit/audit.repository.ts';
import { managerRefusal, organizationNotFound, organizationStanding } from './organization-rules.ts';
import * as repo from './organizations.repository.ts';

type Db = Kysely<IdentityDatabase>;

/** A first name for a new organization, which its owner can change: "Ada's team". */
export function defaultOrganizationName(email: string, fullName: string | null): string {
  const base = fullName?.trim().split(/\s+/)[0] || email.split('@')[0] || 'My';
  const name = base.charAt(0).toUpperCase() + base.slice(1);
  return `${name}'s team`.slice(0, 100);
}

/** The buyer's own name for the organization, when it is one the rename rules allow. */
function chosenName(raw: string | undefined): string | null {
  const name = normalizeOrganizationName(raw);
  return name && !organizationNameProblem(name) ? name : null;
}

type Claimed = {
  userId: string;
  planCode: string;
  accountType: 'personal' | 'business';
  orgId: string | null;
  /** Chosen by the buyer when they bought the plan in the app. */
  orgName?: string | undefined;
};

/**
 * A purchase was claimed. Business plans make the buyer a business account and the owner of a
 * new organization on that plan (or, when bought for an organization they own, of that one);
 * applying the same claim twice changes nothing more.
 */
export async function applyPurchaseClaim(tx: Transaction<IdentityDatabase>, event: Envelope<Claimed>): Promise<void> {
  const { userId, accountType, orgId, planCode, orgName } = event.data;
  if (accountType !== 'business' || !orgId) return;
  const profile = await repo.findClaimantProfile(tx, userId);
  if (!profile) throw new Error(`claim for an unknown user ${userId}`);
  const created = await repo.insertOrganization(tx, {
    id: orgId,
    name: chosenName(orgName) ?? defaultOrganizationName(profile.email, profile.full_name),
    plan: findPlan(planCode)?.code ?? planCode,
  });
  // Billing's subscription events may have come first: the new organization starts as they say.
  if (created) await reconcileStanding(tx, orgId, new Date(event.occurredAt));
  if (await repo.insertMember(tx, { orgId, userId, role: 'owner' })) {
    const at = new Date(event.occurredAt);
    await addToOutbox(tx, memberJoined, { orgId, userId, role: 'owner', actorId: userId, at: at.toISOString() });
    const name = (await repo.personName(tx, userId)) ?? profile.email;
    await addAuditEntry(tx, {
      orgId,
      kind: 'member.joined',
      at,
      actor: { id: userId, name },
      target: { kind: 'user', id: userId, name },
      personId: userId,
      details: { role: 'owner', via: 'purchase' },
    });
  }
  if (profile.account_type !== 'business' && profile.account_type !== 'admin') {
    await repo.makeBusinessAccount(tx, userId);
    await addToOutbox(tx, profileUpdated, { userId, fields: ['account_type'] });
  }
}

type SubscriptionState = { subscriptionId: string; orgId: string | null; planCode: string; status: string };

/**
 * Billing's subscription events, for organizations: the newest state of each subscription is
 * kept (an older event arriving later changes nothing, compared by occurredAt), and the
 * organization's is_active and plan follow them.
 */
export async function applyOrganizationSubscription(tx: Db, event: Envelope<SubscriptionState>): Promise<void> {
  const { subscriptionId, orgId, planCode, status } = event.data;
  if (!orgId) return;
  const occurredAt = new Date(event.occurredAt);
  const before = await repo.orgSubscriptionUpdatedAt(tx, subscriptionId);
  if (before && before > occurredAt) return;
  await repo.upsertOrgSubscription(tx, { subscriptionId, orgId, planCode, status, at: occurredAt });
  await reconcileStanding(tx, orgId, occurredAt);
}

/**
 * Brings the organization's is_active and plan in line with its subscriptions and an operator's
 * suspension (Active only while a subscription entitles it and no operator suspended it). A change
 * of status goes out as organizationStatusChanged (provisioning suspends or reactivates its
 * devices); plan and status changes enter the audit log. The caller holds the organization's lock
 * or takes it here.
 */
export async function reconcileStanding(
  tx: Db,
  orgId: string,
  at: Date,
  by: 'billing' | 'operator' = 'billing',
): Promise<void> {
  const org = await repo.lockOrganization(tx, orgId);
  if (!org) return;
  const subscriptions = await repo.listOrgSubscriptions(tx, orgId);
  // No subscription known yet (the claim came first): Active, as a new organization starts.
  const standing = organizationStanding(subscriptions, { is_active: true, plan: org.plan });
  const next = { is_active: standing.is_active && !org.suspended_by_operator, plan: standing.plan };
  // An operator's hold changing is news for provisioning even when the status stays (an organization
  // already Suspended by its plan): its members' refusals say which reason holds it.
  if (by === 'operator' && next.is_active === org.is_active)
    await addToOutbox(tx, organizationStatusChanged, {
      orgId,
      isActive: next.is_active,
      plan: next.plan,
      suspendedByOperator: org.suspended_by_operator,
    });
  if (next.is_active === org.is_active && next.plan === org.plan) return;
  await repo.setStanding(tx, orgId, next);
  const target = { kind: 'organization' as const, id: orgId, name: org.name };
  if (next.plan !== org.plan)
    await addAuditEntry(tx, {
      orgId,
      kind: 'plan.changed',
      at,
      actor: null,
      target,
      details: { from: org.plan, to: next.plan },
    });
  if (next.is_active !== org.is_active) {
    await addToOutbox(tx, organizationStatusChanged, {
      orgId,
      isActive: next.is_active,
      plan: next.plan,
      suspendedByOperator: org.suspended_by_operator,
    });
    await addAuditEntry(tx, {
      orgId,
      kind: next.is_active ? 'organization.reactivated' : 'organization.suspended',
      at,
      actor: null,
      target,
      details: { plan: next.plan, ...(by === 'operator' ? { by: 'operator' } : {}) },
    });
  }
}

/** The organizations the person belongs to, with their role and the member count. */
export async function listOrganizationsOf(db: Db, userId: string, orgId?: string): Promise<OrganizationView[]> {
  const rows = await repo.listMembershipsOf(db, userId, orgId);
  return rows.map((row) => ({
    ...row,
    created_at: new Date(row.created_at).toISOString(),
    member_count: Number(row.member_count ?? 0),
  }));
}

function detailOf(view: OrganizationView): OrganizationDetail {
  return {
    ...view,
    user_cap: userCapOf(view.plan),
    device_cap: deviceCapOf(view.plan),
    status: organizationStatus(view.is_active),
  };
}

/** Spec §2 business Account: any member sees it; anyone else gets the 404 of an unknown organization. */
export async function organizationDetail(db: Db, caller: Caller, orgId: string): Promise<OrganizationDetail> {
  const userId = requireUserId(caller);
  const [view] = await listOrganizationsOf(db, userId, orgId);
  if (!view) throw organizationNotFound();
  return detailOf(view);
}

/** Owners and admins rename it; 1 to 100 characters once trimmed. */
export async function renameOrganization(
  db: Db,
  caller: Caller,
  input: { org_id: string; name: string },
): Promise<OrganizationDetail> {
  const userId = requireUserId(caller);
  const name = normalizeOrganizationName(input.name);
  await db.transaction().execute(async (tx) => {
    const org = await repo.lockOrganization(tx, input.org_id);
    const refusal = managerRefusal(
      org ? await repo.roleOf(tx, input.org_id, userId) : null,
      organizationManagerActions.rename,
    );
    if (refusal) throw refusal;
    const problem = organizationNameProblem(name);
    if (problem) throw new AppError('validation_failed', problem, { field: 'name' });
    if (org?.name !== name) await repo.renameOrganization(tx, input.org_id, name);
  });
  return organizationDetail(db, caller, input.org_id);
}

/** Service to service: the person's role in the organization (null: none), and its state. */
export async function membership(
  db: Db,
  query: { org_id: string; user_id: string },
): Promise<{ role: OrgRole | null; org_active: boolean; plan: string | null }> {
  const org = await repo.findOrganization(db, query.org_id);
  if (!org) return { role: null, org_active: false, plan: null };
  return { role: await repo.roleOf(db, query.org_id, query.user_id), org_active: org.is_active, plan: org.plan };
}
