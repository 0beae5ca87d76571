import type { Kysely } from 'kysely';
import type { SealingKeys } from '@qw/wireguard';
import type { Logger } from 'pino';
import {
  activePlanRpc,
  AppError,
  deviceCapOf,
  deviceOverviewOf,
  requireUserId,
  validDeviceName,
  type Caller,
  type DeviceOverview,
  type DeviceView,
  type RegionChoice,
  type DevicePrivacyInput,
  orgDevicePageSizes,
  type OrgDevicesPage,
} from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import { requireAccountInGoodStanding } from '../account-standing/account-standing.service.ts';
import type { ProvisioningDatabase } from '../database.ts';
import { validCountry, validPlatform, validPublicKey } from '../devices/device-rules.ts';
import { defaultPrivacy, privacyAfter } from '../devices/device-privacy-rules.ts';
import { connectedNow, view, withStatus } from '../devices/device-view.ts';
import { withinPace } from '../devices/device-locks.ts';
import {
  lockAssignee,
  lockOrganization,
  membershipIn,
  membershipOf,
  organizationNotFound,
  type Membership,
  projectedMembership,
  projectedRole,
  usableOrganizationPlan,
} from '../organizations/organizations.service.ts';
import { afterAskingOwners, askOrganizationOwners } from '../organizations/owner-answers.ts';
import {
  assignmentRefusal,
  organizationQuota,
  everyDeviceSeers,
  quotaRefusal,
  seesEveryDevice,
} from '../organizations/org-device-rules.ts';
import { placeDevice } from '../placement/placement.service.ts';
import {
  countAssigneeDevices,
  countListedOrganizationDevices,
  countOrganizationDevices,
  membershipWithQuotaFacts,
  organizationQuotaFacts,
  type OrganizationQuotaFacts,
  organizationDeviceStates,
  listedOrganizationDevices,
} from './org-devices.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Which page of the list, and of which devices (listOrgDevicesRpc's fields). */
export type OrgDevicesQuery = {
  page?: number | undefined;
  per_page?: number | undefined;
  assignee_id?: string | undefined;
  q?: string | undefined;
};

export type OrgDevicesDeps = {
  db: Db;
  rpc: RpcClient;
  mailQueue: { wake(): Promise<unknown> };
  logger: Logger;
  vault: SealingKeys;
};

/** An organization's devices: its list with the quota, the business Overview, and adding one. */
export class OrgDevicesService {
  constructor(private readonly deps: OrgDevicesDeps) {}

  /**
   * One page of an organization's devices, newest first, with their status (spec §2, §7; paged
   * for issue #24): owners and admins see all of them, members their own; someone outside it gets
   * the "Organization not found." of an organization that does not exist. `assignee_id` narrows
   * to one person, `q` to names holding it. Telemetry is asked about the page's devices only. The
   * quota answer is the whole organization's whatever the page: the plan's device count and the
   * organization's devices, and each person's count of organization devices (every member's for
   * owners and admins, the caller's own for members).
   */
  async listOrganization(caller: Caller, orgId: string, query: OrgDevicesQuery = {}): Promise<OrgDevicesPage> {
    const userId = requireUserId(caller);
    const { db } = this.deps;
    // The membership and the quota's facts in one statement; when the copy does not hold the
    // membership yet, identity is asked (membershipIn) and the facts read again.
    const first = await membershipWithQuotaFacts(db, orgId, userId, everyDeviceSeers);
    let membership = membershipOf(first.member);
    let facts: OrganizationQuotaFacts | null = first.facts;
    if (!membership) {
      membership = await membershipIn(db, this.deps.rpc, orgId, userId);
      facts = null;
    }
    if (!membership) throw organizationNotFound();
    const everyone = seesEveryDevice(membership.role);
    facts ??= await organizationQuotaFacts(db, orgId, userId, everyone);
    const { quota, organizationDevices } = await this.quotaOf(orgId, userId, membership, facts);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? orgDevicePageSizes.default;
    const assignee = query.assignee_id?.toLowerCase() ?? null;
    // A member sees their own devices only: asking for someone else's finds none.
    if (!everyone && assignee !== null && assignee !== userId)
      return { quota, devices: [], total: 0, page, per_page: perPage };
    const q = query.q?.trim() || null;
    const filter = { onlyOf: everyone ? assignee : userId, q };
    const devices = await listedOrganizationDevices(db, orgId, filter, {
      limit: perPage,
      offset: (page - 1) * perPage,
    });
    const total =
      filter.onlyOf === null && filter.q === null
        ? organizationDevices
        : await countListedOrganizationDevices(db, orgId, filter);
    return { devices: await withStatus(this.deps.rpc, devices), quota, total, page, per_page: perPage };
  }

  /** The organization's quota answer (organizationQuota) and its device count, from its facts. */
  private async quotaOf(orgId: string, userId: string, membership: Membership, facts: OrganizationQuotaFacts) {
    const { members, counts, organizationDevices } = facts;
    const plan = facts.plan ?? (await this.billingPlan(orgId)) ?? membership.plan;
    return {
      organizationDevices,
      quota: organizationQuota({
        role: membership.role,
        callerId: userId,
        members,
        counts,
        devices: organizationDevices,
        deviceCap: plan ? deviceCapOf(plan) : null,
      }),
    };
  }

  /**
   * The business Overview's tiles for the devices the caller sees in the organization: counted
   * from the device rows (`connectedNow`, the rule of every view), so telemetry is not asked and
   * no list is built, however many devices it has.
   */
  async organizationOverview(caller: Caller, orgId: string): Promise<DeviceOverview> {
    const userId = requireUserId(caller);
    const membership = await membershipIn(this.deps.db, this.deps.rpc, orgId, userId);
    if (!membership) throw organizationNotFound();
    const rows = await organizationDeviceStates(this.deps.db, orgId, seesEveryDevice(membership.role) ? null : userId);
    const now = new Date();
    return deviceOverviewOf(rows.map((row) => ({ is_connected: connectedNow(row, now) })));
  }

  /**
   * Spec §5 business add device: for the caller, or (owners and admins) for any member; platform
   * linux by default. Refused, with nothing written, outside the organization (not found), for
   * someone else by a member, for someone who is not a member, while the organization is
   * Suspended, when the person already has 5 organization devices (in all organizations), when
   * the organization has its plan's device count, and past the pace of additions. Under the
   * organization's lock, then the person's, so two adds cannot both take the last place.
   */
  async createInOrganization(
    caller: Caller,
    input: {
      org_id: string;
      name: string;
      platform?: string | undefined;
      assignee_id?: string | undefined;
      public_key?: string | undefined;
      region?: RegionChoice | undefined;
      country?: string | undefined;
    } & DevicePrivacyInput,
  ): Promise<DeviceView> {
    const userId = requireUserId(caller);
    const name = validDeviceName(input.name);
    const platform = validPlatform(input.platform ?? 'linux');
    const publicKey = validPublicKey(input.public_key);
    const country = validCountry(input.country);
    const privacy = privacyAfter(defaultPrivacy, input);
    const orgId = input.org_id.toLowerCase();
    const assigneeId = input.assignee_id?.toLowerCase() ?? userId;
    if (publicKey !== undefined && assigneeId !== userId) {
      throw new AppError(
        'forbidden',
        "Only the device's person can choose its key. Add it without one: its configuration is mailed to them.",
        { field: 'public_key' },
      );
    }
    const addOnCopies = async (tx: Db) => {
      await lockOrganization(tx, orgId);
      const membership = await projectedMembership(tx, orgId, userId);
      if (!membership) throw organizationNotFound();
      const refusal = assignmentRefusal({ userId, role: membership.role }, assigneeId);
      if (refusal) throw refusal;
      if (assigneeId !== userId && !(await projectedRole(tx, orgId, assigneeId))) {
        throw new AppError('validation_failed', 'The assignee must be a member of this organization.', {
          field: 'assignee_id',
        });
      }
      // Refused while the organization is Suspended (with why) or no subscription entitles it.
      const plan = await usableOrganizationPlan(tx, orgId);
      await requireAccountInGoodStanding(tx, assigneeId, assigneeId === userId ? 'own' : 'other');
      await lockAssignee(tx, assigneeId);
      const overQuota = quotaRefusal(
        {
          assigneeDevices: await countAssigneeDevices(tx, assigneeId),
          organizationDevices: await countOrganizationDevices(tx, orgId),
          deviceCap: deviceCapOf(plan),
        },
        assigneeId === userId,
      );
      if (overQuota) throw overQuota;
      await withinPace(tx, userId);
      return placeDevice(tx, {
        userId: assigneeId,
        orgId,
        name,
        platform,
        publicKey,
        plan,
        regionChoice: input.region ?? 'auto',
        country,
        actorId: userId,
        vault: this.deps.vault,
        privacy,
      });
    };
    // Identity's and billing's events of a change answered a moment ago may be on their way: a
    // refusal of the copies asks them (never inside the transaction) and adds again on their word.
    const created = await afterAskingOwners(
      () => this.deps.db.transaction().execute(addOnCopies),
      () => askOrganizationOwners(this.deps.db, this.deps.rpc, orgId, [userId, assigneeId]),
      this.deps.logger,
    );
    this.deps.mailQueue.wake();
    return view(created.device, created.node);
  }

  /**
   * Billing's word on the organization's plan, for its page while the copy of its subscriptions
   * knows none (never inside a transaction).
   */
  private async billingPlan(orgId: string): Promise<string | null> {
    return (await this.deps.rpc.request(activePlanRpc, { org_id: orgId })).plan?.plan_code ?? null;
  }
}
