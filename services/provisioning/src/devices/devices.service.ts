import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  activePlanRpc,
  AppError,
  deviceCapOf,
  deviceOverviewOf,
  deviceRateLimits,
  isDeviceConnected,
  latestTelemetryRpc,
  type DeviceOverview,
  type DeviceWithStatus,
  fairUseDeviceCeiling,
  keyRotationGraceHours,
  mailAddressRpc,
  nextKeyRotationAt,
  type KeyRotationDays,
  requireAdmin,
  requireUserId,
  validDeviceName,
  type Caller,
  type DeviceView,
  type Platform,
  type SuspensionLevel,
} from '@qw/contracts';
import { takeRateLimited } from '@qw/platform/limits';
import type { RpcClient } from '@qw/platform/bus';
import { mailNotYet, queueMail, type MailMessage } from '@qw/platform/mailer';
import {
  configFileName,
  configQrPng,
  decryptPrivateKey,
  deviceAddressCidrs,
  encryptPrivateKey,
  generateKeyPair,
  isWireGuardKey,
  renderClientConfig,
} from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import type { Clock } from '../clock.ts';
import { activePlanOf } from '../entitlements/entitlements.service.ts';
import { leaseAddress } from '../nodes/nodes.service.ts';
import { deviceConfigMail } from '../mail/device-config-mail.ts';
import { chooseNode, validPlatform } from './device-rules.ts';
import { deviceAccess, deviceRefusal, type DeviceAccess, type DeviceOperation } from './device-access.ts';
import { lockPersonalDevices, requireUnusedPublicKey } from './device-locks.ts';
import { suspensionLevelOf, suspensionReasonOf, suspensionStep } from './suspension-rules.ts';
import {
  recordActivated,
  recordCreated,
  recordKeyRotated,
  recordKeysRevoked,
  recordRemoved,
  recordRenamed,
  recordSuspended,
  retireKeys,
  type SuspensionReason,
} from './device-events.ts';
import {
  lockAssignee,
  lockOrganization,
  membersOf,
  membershipIn,
  organizationSuspension,
  organizationNotFound,
  projectedMembership,
  usableOrganizationPlan,
} from '../organizations/organizations.service.ts';
import { afterAskingOwners, askBilling, askOrganizationOwners } from '../organizations/owner-answers.ts';
import {
  assignmentRefusal,
  organizationQuota,
  quotaRefusal,
  seesEveryDevice,
  suspendedOrganization,
} from '../organizations/org-device-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

export type DevicesDeps = {
  db: Db;
  rpc: RpcClient;
  mailQueue: { wake(): Promise<unknown> };
  logger: Logger;
  vaultKey: string;
  dns: string[];
  /** Provisioning's time: scheduled rotations and grace periods read it (a test clock in tests). */
  clock: Clock;
};

/** The queued mail that carries a device's configuration (the .conf attached, the QR inline). */
export const configMailKind = 'device-config';

const notFound = () => new AppError('not_found', 'Device not found.');

export const configLinkSeconds = 60;
const newLinkToken = () => randomBytes(32).toString('base64url');
const hashLinkToken = (token: string) => createHash('sha256').update(token).digest('base64url');

const iso = (at: Date | string | null | undefined) => (at ? new Date(at).toISOString() : null);

function view(device: Device, node: Node | undefined, previousKeyExpiresAt: Date | null = null): DeviceView {
  return {
    id: device.id,
    name: device.name,
    platform: device.platform,
    is_active: device.is_active,
    user_id: device.user_id,
    org_id: device.org_id,
    created_at: new Date(device.created_at).toISOString(),
    public_key: device.public_key,
    addresses: device.ipv4 && device.ipv6 ? deviceAddressCidrs(device.ipv4, device.ipv6) : [],
    node: node ? { id: node.id, name: node.name, region: node.region } : null,
    key_created_at: device.key_created_at ? new Date(device.key_created_at).toISOString() : null,
    client_keys: device.client_keys,
    key_rotation_days:
      device.key_rotation_days === 30 || device.key_rotation_days === 90 ? device.key_rotation_days : null,
    next_key_rotation_at: iso(device.next_key_rotation_at),
    previous_key_expires_at: iso(previousKeyExpiresAt),
    suspended_by: device.suspended_by ?? null,
  };
}

/** Spec §2/§4: Devices, Connected, and VPN Status, by the one rule every view uses (contracts' devices.ts). */
function overviewOf(devices: DeviceWithStatus[]): DeviceOverview {
  return deviceOverviewOf(devices);
}

/** The columns a suspension or an activation changes. */
type DeviceSuspension = {
  is_active?: boolean;
  suspended_reason?: string | null;
  suspended_by?: SuspensionLevel | null;
};

/** What nodes and services hear of it: only of a device that went off or came back (not of a take-over). */
async function recordSuspensionChange(tx: Db, before: Device, after: Device, actorId: string | null): Promise<void> {
  if (before.is_active && !after.is_active)
    await recordSuspended(tx, [after], after.suspended_reason as SuspensionReason, actorId);
  if (!before.is_active && after.is_active) await recordActivated(tx, [after], actorId);
}

/** Devices: add, rename, suspend, activate, remove, new keys, and their configuration files. */
export class DevicesService {
  /** The rotation pass in progress here, if any: passes in one process run one after another. */
  private rotationPass: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DevicesDeps) {}

  get clock(): Clock {
    return this.deps.clock;
  }

  private async nodesById(ids: Array<string | null>): Promise<Map<string, Node>> {
    const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
    if (wanted.length === 0) return new Map();
    const nodes = await this.deps.db.selectFrom('nodes').selectAll().where('id', 'in', wanted).execute();
    return new Map(nodes.map((node) => [node.id, node]));
  }

  /** Until when each device's previous key (of a scheduled rotation) still works, where one does. */
  private async retiringUntil(deviceIds: string[]): Promise<Map<string, Date>> {
    if (deviceIds.length === 0) return new Map();
    const rows = await this.deps.db
      .selectFrom('retiring_keys')
      .select(['device_id', 'expires_at'])
      .where('device_id', 'in', deviceIds)
      .execute();
    return new Map(rows.map((row) => [row.device_id, new Date(row.expires_at)]));
  }

  /**
   * Each device with its traffic from telemetry; connected (and its handshake) from the device's
   * own row, the read model the operator's lists use too, by `isDeviceConnected`.
   */
  private async withStatus(devices: Device[]): Promise<DeviceWithStatus[]> {
    const nodes = await this.nodesById(devices.map((d) => d.node_id));
    const latest =
      devices.length === 0
        ? []
        : (await this.deps.rpc.request(latestTelemetryRpc, { device_ids: devices.map((d) => d.id) })).devices;
    const statusOf = new Map(latest.map((row) => [row.device_id, row]));
    const retiring = await this.retiringUntil(devices.map((d) => d.id));
    const now = new Date();
    return devices.map((device) => {
      const status = statusOf.get(device.id);
      return {
        ...view(device, device.node_id ? nodes.get(device.node_id) : undefined, retiring.get(device.id) ?? null),
        is_connected: isDeviceConnected(
          { isActive: device.is_active, hasKey: device.public_key !== null, latestHandshake: device.latest_handshake },
          now,
        ),
        latest_handshake: device.latest_handshake ? new Date(device.latest_handshake).toISOString() : null,
        rx_bytes: status?.rx_bytes ?? 0,
        tx_bytes: status?.tx_bytes ?? 0,
      };
    });
  }

  /** The caller's own personal devices (org_id null), newest first, with their status. */
  async list(caller: Caller): Promise<DeviceWithStatus[]> {
    const userId = requireUserId(caller);
    const devices = await this.deps.db
      .selectFrom('devices')
      .selectAll()
      .where('user_id', '=', userId)
      .where('org_id', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return this.withStatus(devices);
  }

  /** Spec §2's three tiles: Devices, Connected, VPN Status. */
  async overview(caller: Caller): Promise<DeviceOverview> {
    return overviewOf(await this.list(caller));
  }

  /**
   * An organization's devices, newest first, with their status (spec §2, §7): owners and admins
   * see all of them, members their own; someone outside it gets the "Organization not found." of
   * an organization that does not exist. The quota answer: the plan's device count and the
   * organization's devices, and each person's count of organization devices (every member's for
   * owners and admins, the caller's own for members).
   */
  async listOrganization(caller: Caller, orgId: string) {
    const userId = requireUserId(caller);
    const { db } = this.deps;
    const membership = await membershipIn(db, this.deps.rpc, orgId, userId);
    if (!membership) throw organizationNotFound();
    let query = db.selectFrom('devices').selectAll().where('org_id', '=', orgId);
    if (!seesEveryDevice(membership.role)) query = query.where('user_id', '=', userId);
    const devices = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    const everyone = seesEveryDevice(membership.role);
    // The caller is a member even while identity's event about it is on its way.
    const members = everyone ? [...new Set([userId, ...(await membersOf(db, orgId))])] : [userId];
    const assignees = everyone
      ? (await db.selectFrom('devices').select('user_id').distinct().where('org_id', '=', orgId).execute()).map(
          (row) => row.user_id,
        )
      : [];
    const people = [...new Set([...members, ...assignees])];
    const counted =
      people.length === 0
        ? []
        : await db
            .selectFrom('devices')
            .select(['user_id', (eb) => eb.fn.countAll<string>().as('n')])
            .where('org_id', 'is not', null)
            .where('user_id', 'in', people)
            .groupBy('user_id')
            .execute();
    const counts = new Map(counted.map((row) => [row.user_id, Number(row.n)]));
    const total = await db
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    const plan = (await this.entitledPlan(db, { userId, orgId })) ?? membership.plan;
    return {
      devices: await this.withStatus(devices),
      quota: organizationQuota({
        role: membership.role,
        callerId: userId,
        members,
        counts,
        devices: Number(total.n),
        deviceCap: plan ? deviceCapOf(plan) : null,
      }),
    };
  }

  /** The business Overview's tiles for the devices the caller sees in the organization. */
  async organizationOverview(caller: Caller, orgId: string): Promise<DeviceOverview> {
    return overviewOf((await this.listOrganization(caller, orgId)).devices);
  }

  /**
   * A device the caller may do `operation` to, locked for the transaction, and what the caller is
   * to it. The device access policy decides, knowing the caller's role in the device's
   * organization; a device the caller may not touch is "not found", like one that does not exist.
   */
  private async deviceFor(
    tx: Db,
    caller: Caller,
    deviceId: string,
    operation: DeviceOperation,
  ): Promise<{ device: Device; access: DeviceAccess }> {
    const userId = requireUserId(caller);
    const device = await tx.selectFrom('devices').selectAll().where('id', '=', deviceId).forUpdate().executeTakeFirst();
    if (!device) throw notFound();
    // Roles from the copy only, never an RPC under the device's lock: identity's membership changes
    // answer once the copy has them (read-your-writes), and a member is in it before anyone after them.
    const role =
      device.org_id && device.user_id !== userId
        ? ((await projectedMembership(tx, device.org_id, userId))?.role ?? null)
        : null;
    // An admin manages no owner's device: the assignee's role matters only to an admin.
    const assigneeRole =
      device.org_id && role === 'admin'
        ? ((await projectedMembership(tx, device.org_id, device.user_id))?.role ?? null)
        : null;
    const access = deviceAccess(device, caller, role, assigneeRole);
    const refusal = deviceRefusal(access, operation);
    if (refusal) throw refusal;
    return { device, access };
  }

  /**
   * "Unlimited devices" under fair use: a ceiling per account and a pace of additions, both far
   * above any household's, so a script cannot fill a node. Checked after everything else, so a
   * refusal for another reason records nothing.
   */
  private async withinFairUse(tx: Db, userId: string): Promise<void> {
    // Parallel adds count one after another, so they cannot all see room for one more.
    await lockPersonalDevices(tx, userId);
    const owned = await tx
      .selectFrom('devices')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('org_id', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(owned.n) >= fairUseDeviceCeiling) {
      throw new AppError(
        'quota_exceeded',
        `Unlimited devices are subject to fair use: up to ${fairUseDeviceCeiling} per account. Remove a device you no longer use, or write to support.`,
      );
    }
    await this.withinPace(tx, userId);
  }

  /** The pace of additions, per person who adds (personal and organization devices alike). */
  private async withinPace(tx: Db, userId: string): Promise<void> {
    await takeRateLimited(
      tx,
      [{ key: `devices:create:${userId}`, limit: deviceRateLimits.creations }],
      (wait) => `You added many devices in a short time. Try again in ${wait}.`,
    );
  }

  /**
   * The plan that entitles a device's owner (a person's personal plan, or an organization's) to
   * active devices, for a page (never inside a transaction): the copy of billing's subscriptions,
   * or billing's answer while the copy knows of none yet.
   */
  private async entitledPlan(db: Db, owner: { userId: string; orgId: string | null }): Promise<string | null> {
    return (
      (await activePlanOf(db, owner)) ??
      (await this.deps.rpc.request(activePlanRpc, owner.orgId ? { org_id: owner.orgId } : { user_id: owner.userId }))
        .plan?.plan_code ??
      null
    );
  }

  /** The same from the copy alone, inside a transaction; a refusal is corrected by `afterAskingBilling`. */
  private async requireEntitlement(db: Db, owner: { userId: string; orgId: string | null }): Promise<string> {
    const plan = await activePlanOf(db, owner);
    if (plan) return plan;
    if (owner.orgId) throw suspendedOrganization();
    throw new AppError(
      'no_entitlement',
      'Devices come with an active Personal or Gaming plan. Choose a plan in Billing to add devices.',
    );
  }

  /**
   * Billing's events arrive a few milliseconds after a purchase is claimed, so a refusal for want
   * of a plan may only be the copy behind: billing is asked (between transactions, never inside
   * one), its answer kept, and `work` runs once more when it knew of a plan the copy did not. So a
   * person can use at once what they just bought.
   */
  private async afterAskingBilling<T>(
    work: () => Promise<T>,
    ownerOf: () => Promise<{ userId: string | null; orgId: string | null } | null>,
  ): Promise<T> {
    try {
      return await work();
    } catch (refusal) {
      if (!(refusal instanceof AppError && refusal.code === 'no_entitlement')) throw refusal;
      let corrected = false;
      try {
        const owner = await ownerOf();
        corrected = owner !== null && (await askBilling(this.deps.db, this.deps.rpc, owner));
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'billing could not be asked; the refusal of the local copy stands');
      }
      if (!corrected) throw refusal;
      return work();
    }
  }

  /** Whose plan entitles the device (its organization's, or its person's personal plan), for `afterAskingBilling`. */
  private async entitledOwnerOf(deviceId: string): Promise<{ userId: string | null; orgId: string | null } | null> {
    const device = await this.deps.db
      .selectFrom('devices')
      .select(['user_id', 'org_id'])
      .where('id', '=', deviceId)
      .executeTakeFirst();
    if (!device) return null;
    return device.org_id ? { userId: null, orgId: device.org_id } : { userId: device.user_id, orgId: null };
  }

  /**
   * The columns asking for the device active (or not) at `level` changes (suspension-rules.ts):
   * refused while a higher level holds it off; coming back needs the plan or organization that
   * entitles it.
   */
  private async suspensionChanges(
    tx: Db,
    device: Device,
    level: SuspensionLevel,
    active: boolean,
  ): Promise<DeviceSuspension> {
    const step = suspensionStep(device, level, active);
    if (step === 'none') return {};
    if (step === 'activate') {
      if (device.org_id) await this.requireUsableOrganization(tx, { userId: device.user_id, orgId: device.org_id });
      else await this.requireEntitlement(tx, { userId: device.user_id, orgId: null });
      return { is_active: true, suspended_reason: null, suspended_by: null };
    }
    return { is_active: false, suspended_reason: suspensionReasonOf(level), suspended_by: level };
  }

  /** An organization's devices run only while it is Active (identity) and entitled (billing). */
  private async requireUsableOrganization(db: Db, owner: { userId: string; orgId: string }): Promise<string> {
    const suspension = await organizationSuspension(db, owner.orgId);
    if (suspension) throw suspendedOrganization(suspension);
    return this.requireEntitlement(db, owner);
  }

  /**
   * Places a new device on the least-loaded node (gaming-tagged first for Gaming), leases its
   * address, makes its keys (or takes the browser's public key), records it and queues its mail.
   */
  private async placeDevice(
    tx: Db,
    input: {
      id: string;
      userId: string;
      orgId: string | null;
      name: string;
      platform: string;
      publicKey: string | undefined;
      plan: string;
      actorId: string;
    },
  ): Promise<{ device: Device; node: Node }> {
    const candidates = await tx
      .selectFrom('nodes')
      .leftJoin('devices', 'devices.node_id', 'nodes.id')
      .select(['nodes.id', 'nodes.tags', (eb) => eb.fn.count<string>('devices.id').as('devices')])
      // A drained node takes no new devices (an operator's choice); those on it stay.
      .where('nodes.draining', '=', false)
      .groupBy('nodes.id')
      .orderBy('nodes.created_at')
      .execute();
    const chosen = chooseNode(
      candidates.map((c) => ({ id: c.id, tags: c.tags, devices: Number(c.devices) })),
      input.plan,
    );
    if (!chosen) throw new AppError('unavailable', 'No VPN server is available right now. Try again in a few minutes.');
    const node = await tx.selectFrom('nodes').selectAll().where('id', '=', chosen.id).executeTakeFirstOrThrow();
    const address = await leaseAddress(tx, node);
    if (input.publicKey) await requireUnusedPublicKey(tx, input.publicKey, input.id);
    const keys = input.publicKey ? { publicKey: input.publicKey, privateKey: null } : generateKeyPair();
    const device = await tx
      .insertInto('devices')
      .values({
        id: input.id,
        user_id: input.userId,
        org_id: input.orgId,
        name: input.name,
        platform: input.platform,
        public_key: keys.publicKey,
        private_key_sealed: keys.privateKey ? encryptPrivateKey(keys.privateKey, this.deps.vaultKey, input.id) : null,
        client_keys: keys.privateKey === null,
        node_id: node.id,
        ipv4: address.ipv4,
        ipv6: address.ipv6,
        key_created_at: new Date(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordCreated(tx, device, input.actorId);
    await this.queueConfigMail(tx, device, false);
    return { device, node };
  }

  async create(
    caller: Caller,
    input: { name: string; platform: string; public_key?: string | undefined },
  ): Promise<DeviceView> {
    const userId = requireUserId(caller);
    const name = validDeviceName(input.name);
    const platform = validPlatform(input.platform);
    if (input.public_key !== undefined && !isWireGuardKey(input.public_key)) {
      throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', {
        field: 'public_key',
      });
    }
    const created = await this.afterAskingBilling(
      () =>
        this.deps.db.transaction().execute(async (tx) => {
          const plan = await this.requireEntitlement(tx, { userId, orgId: null });
          await this.withinFairUse(tx, userId);
          return this.placeDevice(tx, {
            id: randomUUID(),
            userId,
            orgId: null,
            name,
            platform,
            publicKey: input.public_key,
            plan,
            actorId: userId,
          });
        }),
      async () => ({ userId, orgId: null }),
    );
    this.deps.mailQueue.wake();
    return view(created.device, created.node);
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
    },
  ): Promise<DeviceView> {
    const userId = requireUserId(caller);
    const name = validDeviceName(input.name);
    const platform = validPlatform(input.platform ?? 'linux');
    if (input.public_key !== undefined && !isWireGuardKey(input.public_key)) {
      throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', {
        field: 'public_key',
      });
    }
    const orgId = input.org_id.toLowerCase();
    const assigneeId = input.assignee_id?.toLowerCase() ?? userId;
    if (input.public_key !== undefined && assigneeId !== userId) {
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
      if (assigneeId !== userId && !(await projectedMembership(tx, orgId, assigneeId))) {
        throw new AppError('validation_failed', 'The assignee must be a member of this organization.', {
          field: 'assignee_id',
        });
      }
      if (membership.suspension) throw suspendedOrganization(membership.suspension);
      const plan = await usableOrganizationPlan(tx, orgId);
      await lockAssignee(tx, assigneeId);
      const count = async (where: 'assignee' | 'organization') => {
        let query = tx.selectFrom('devices').select((eb) => eb.fn.countAll<string>().as('n'));
        query =
          where === 'assignee'
            ? query.where('user_id', '=', assigneeId).where('org_id', 'is not', null)
            : query.where('org_id', '=', orgId);
        return Number((await query.executeTakeFirstOrThrow()).n);
      };
      const overQuota = quotaRefusal(
        {
          assigneeDevices: await count('assignee'),
          organizationDevices: await count('organization'),
          deviceCap: deviceCapOf(plan),
        },
        assigneeId === userId,
      );
      if (overQuota) throw overQuota;
      await this.withinPace(tx, userId);
      return this.placeDevice(tx, {
        id: randomUUID(),
        userId: assigneeId,
        orgId,
        name,
        platform,
        publicKey: input.public_key,
        plan,
        actorId: userId,
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

  async update(
    caller: Caller,
    input: { device_id: string; name?: string | undefined; is_active?: boolean | undefined },
  ): Promise<DeviceView> {
    const result = await this.afterAskingBilling(
      () => this.updateOnCopies(caller, input),
      () => this.entitledOwnerOf(input.device_id),
    );
    return this.viewOf(result);
  }

  private updateOnCopies(
    caller: Caller,
    input: { device_id: string; name?: string | undefined; is_active?: boolean | undefined },
  ): Promise<Device> {
    return this.deps.db.transaction().execute(async (tx) => {
      const operations: DeviceOperation[] = [];
      if (input.name !== undefined) operations.push('rename');
      if (input.is_active !== undefined) operations.push(input.is_active ? 'activate' : 'suspend');
      const { device, access } = await this.deviceFor(tx, caller, input.device_id, operations[0] ?? 'view');
      for (const operation of operations.slice(1)) {
        const refusal = deviceRefusal(access, operation);
        if (refusal) throw refusal;
      }
      const changes: DeviceSuspension & { name?: string } = {};
      if (input.name !== undefined) {
        const name = validDeviceName(input.name);
        if (name !== device.name) changes.name = name;
      }
      if (input.is_active !== undefined) {
        // deviceFor let only its person, a manager or an operator ask for either.
        const level = suspensionLevelOf(access as 'own' | 'manage' | 'operate');
        Object.assign(changes, await this.suspensionChanges(tx, device, level, input.is_active));
      }
      if (Object.keys(changes).length === 0) return device;
      const after = await tx
        .updateTable('devices')
        .set(changes)
        .where('id', '=', device.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (changes.name !== undefined) await recordRenamed(tx, after, caller.userId);
      await recordSuspensionChange(tx, device, after, caller.userId);
      return after;
    });
  }

  /**
   * Spec §7 admin device action, from the operator console (platform admins only): suspend (the
   * peer leaves its node; the device remembers an operator switched it off), activate (back with
   * its peer, if its owner is still entitled), or revoke_keys (the key pair is erased and the peer
   * leaves its node at once; its person gets a new one with "Request key"). Each is recorded in
   * `operator_actions` in the same transaction, whether or not it changed anything.
   */
  async operate(
    caller: Caller,
    input: { action: 'activate' | 'suspend' | 'revoke_keys'; deviceId: string },
  ): Promise<Device> {
    const actorId = requireAdmin(caller);
    const deviceId = input.deviceId.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(deviceId)) throw notFound();
    return this.afterAskingBilling(
      () => this.operateOnCopies(actorId, input.action, deviceId),
      () => this.entitledOwnerOf(deviceId),
    );
  }

  private operateOnCopies(
    actorId: string,
    action: 'activate' | 'suspend' | 'revoke_keys',
    deviceId: string,
  ): Promise<Device> {
    const input = { action };
    return this.deps.db.transaction().execute(async (tx) => {
      const device = await tx
        .selectFrom('devices')
        .selectAll()
        .where('id', '=', deviceId)
        .forUpdate()
        .executeTakeFirst();
      if (!device) throw notFound();
      let after = device;
      if (input.action === 'revoke_keys') {
        if (device.public_key) {
          after = await tx
            .updateTable('devices')
            .set({ public_key: null, private_key_sealed: null, client_keys: false, key_created_at: null })
            .where('id', '=', device.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await recordKeysRevoked(tx, device, actorId);
        }
      } else {
        // The highest level: it lifts any suspension, and takes over one already there.
        const changes = await this.suspensionChanges(tx, device, 'operator', input.action === 'activate');
        if (Object.keys(changes).length > 0) {
          after = await tx
            .updateTable('devices')
            .set(changes)
            .where('id', '=', device.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          await recordSuspensionChange(tx, device, after, actorId);
        }
      }
      const kind = { activate: 'device.activated', suspend: 'device.suspended', revoke_keys: 'device.keys_revoked' }[
        input.action
      ];
      await tx
        .insertInto('operator_actions')
        .values({
          id: randomUUID(),
          actor_id: actorId,
          kind,
          target_kind: 'device',
          target_id: device.id,
          details: JSON.stringify({ changed: after !== device, name: device.name }),
        })
        .execute();
      return after;
    });
  }

  /** Deletes the device: its peer leaves the node and its address is free again. */
  async remove(caller: Caller, deviceId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      const { device } = await this.deviceFor(tx, caller, deviceId, 'remove');
      await tx.deleteFrom('devices').where('id', '=', device.id).execute();
      await recordRemoved(tx, [device], caller.userId);
    });
  }

  /**
   * "Request key": a new key pair (or the browser's new public key), the node updated, and the
   * new configuration emailed. The old key stops working as soon as the node applies the change.
   */
  async requestKey(
    caller: Caller,
    input: { device_id: string; public_key?: string | undefined },
  ): Promise<{ device: DeviceView; emailed: boolean }> {
    if (input.public_key !== undefined && !isWireGuardKey(input.public_key)) {
      throw new AppError('validation_failed', 'The public key must be a WireGuard key (44 characters of base64).', {
        field: 'public_key',
      });
    }
    const rotated = await this.deps.db.transaction().execute(async (tx) => {
      const operation = input.public_key === undefined ? 'request-key' : 'choose-key';
      const { device } = await this.deviceFor(tx, caller, input.device_id, operation);
      if (input.public_key !== undefined) await requireUnusedPublicKey(tx, input.public_key, device.id);
      if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
      await takeRateLimited(
        tx,
        [{ key: `devices:key:${device.id}`, limit: deviceRateLimits.keyRequests }],
        (wait) => `This device got several new keys already. Try again in ${wait}.`,
      );
      const keys = input.public_key ? { publicKey: input.public_key, privateKey: null } : generateKeyPair();
      // A schedule counts from the newest key; a key made in the browser ends it (the service could
      // not make the next one).
      const days = keys.privateKey === null ? null : (device.key_rotation_days as KeyRotationDays | null);
      const after = await tx
        .updateTable('devices')
        .set({
          public_key: keys.publicKey,
          private_key_sealed: keys.privateKey
            ? encryptPrivateKey(keys.privateKey, this.deps.vaultKey, device.id)
            : null,
          client_keys: keys.privateKey === null,
          key_created_at: new Date(),
          key_rotation_days: days,
          next_key_rotation_at: days ? nextKeyRotationAt(await this.deps.clock.now(), days) : null,
        })
        .where('id', '=', device.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordKeyRotated(tx, device, after, caller.userId);
      const queued = await this.queueConfigMail(tx, after, true);
      const node = await tx.selectFrom('nodes').selectAll().where('id', '=', after.node_id!).executeTakeFirstOrThrow();
      return { device: after, node, queued };
    });
    this.deps.mailQueue.wake();
    // The mail goes to the device's person once their address is confirmed; the caller's own
    // confirmation is what this answer can speak for.
    const emailed = rotated.queued && (rotated.device.user_id !== caller.userId || caller.emailVerified);
    return { device: view(rotated.device, rotated.node), emailed };
  }

  /**
   * Scheduled key rotation for one device: every 30 or 90 days, or off (null). Whoever may use
   * "Request key" on it may; the schedule starts now (the first rotation `days` from now), and
   * choosing the schedule it has already changes nothing.
   */
  async setKeyRotation(
    caller: Caller,
    input: { device_id: string; every_days: KeyRotationDays | null },
  ): Promise<DeviceView> {
    const now = await this.deps.clock.now();
    const device = await this.deps.db.transaction().execute(async (tx) => {
      const { device } = await this.deviceFor(tx, caller, input.device_id, 'request-key');
      const days = input.every_days;
      if (days !== null && device.client_keys) {
        throw new AppError(
          'conflict',
          'This device\'s key was made in your browser, so the service cannot make its next one. Use "Request key" for a key from the service first, or rotate it by hand.',
        );
      }
      if (days !== null && !device.public_key) {
        throw new AppError('conflict', 'This device\'s keys were revoked. Use "Request key" to make a new one.');
      }
      if (days === device.key_rotation_days) return device;
      return tx
        .updateTable('devices')
        .set({ key_rotation_days: days, next_key_rotation_at: days ? nextKeyRotationAt(now, days) : null })
        .where('id', '=', device.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return this.viewOf(device);
  }

  private async viewOf(device: Device): Promise<DeviceView> {
    const nodes = await this.nodesById([device.node_id]);
    const retiring = await this.retiringUntil([device.id]);
    return view(device, device.node_id ? nodes.get(device.node_id) : undefined, retiring.get(device.id) ?? null);
  }

  /**
   * What the clock made due: keys whose grace period ended leave their nodes, then every device
   * whose scheduled rotation is due gets a new key (in batches, each device locked, so replicas
   * share the work). Runs on a timer and right after a test moves the clock. A pass asked for
   * while another runs in this process waits for it: rows that pass holds are skipped by the
   * lock, so without the wait a caller could be answered before the rotations it asked for exist.
   */
  runKeyRotations(): Promise<{ rotated: number; retired: number }> {
    const pass = this.rotationPass.then(() => this.rotateDueKeys());
    this.rotationPass = pass.catch(() => undefined);
    return pass;
  }

  private async rotateDueKeys(): Promise<{ rotated: number; retired: number }> {
    const now = await this.deps.clock.now();
    const retired = await this.deps.db.transaction().execute((tx) => retireKeys(tx, { endedBy: now }));
    let rotated = 0;
    const batchSize = 50;
    for (;;) {
      const handled = await this.deps.db.transaction().execute(async (tx) => {
        const due = await tx
          .selectFrom('devices')
          .selectAll()
          .where('next_key_rotation_at', '<=', now)
          .orderBy('next_key_rotation_at')
          .limit(batchSize)
          .forUpdate()
          .skipLocked()
          .execute();
        for (const device of due) if (await this.rotateOnSchedule(tx, device, now)) rotated++;
        return due.length;
      });
      if (handled < batchSize) break;
    }
    if (rotated > 0) {
      this.deps.mailQueue.wake();
      this.deps.logger.info({ rotated, retired }, 'scheduled key rotations done');
    }
    return { rotated, retired };
  }

  /**
   * One due rotation, as "Request key" makes it, except that the old key stays on the node for
   * the grace period. WireGuard routes an address to one peer only, so the new key gets a new
   * address and the old one keeps its own until the grace period ends. Answers whether it rotated:
   * a key made in the browser ends the schedule (the service cannot make the next one), revoked
   * keys wait for their person's "Request key".
   */
  private async rotateOnSchedule(tx: Db, device: Device, now: Date): Promise<boolean> {
    const days = device.key_rotation_days as KeyRotationDays | null;
    // A suspended device's key is on no node, and nobody wants new-key mail for a device that is off:
    // its schedule moves on instead.
    if (
      !days ||
      device.client_keys ||
      !device.is_active ||
      !device.public_key ||
      !device.node_id ||
      !device.ipv4 ||
      !device.ipv6
    ) {
      await tx
        .updateTable('devices')
        .set(
          days && !device.client_keys
            ? { next_key_rotation_at: nextKeyRotationAt(now, days) }
            : { key_rotation_days: null, next_key_rotation_at: null },
        )
        .where('id', '=', device.id)
        .execute();
      return false;
    }
    await retireKeys(tx, { deviceIds: [device.id] });
    const node = await tx.selectFrom('nodes').selectAll().where('id', '=', device.node_id).executeTakeFirstOrThrow();
    const address = await leaseAddress(tx, node);
    await tx
      .insertInto('retiring_keys')
      .values({
        public_key: device.public_key,
        device_id: device.id,
        node_id: node.id,
        ipv4: device.ipv4,
        ipv6: device.ipv6,
        expires_at: new Date(now.getTime() + keyRotationGraceHours * 3600_000),
      })
      .execute();
    const keys = generateKeyPair();
    const after = await tx
      .updateTable('devices')
      .set({
        public_key: keys.publicKey,
        private_key_sealed: encryptPrivateKey(keys.privateKey, this.deps.vaultKey, device.id),
        client_keys: false,
        key_created_at: now,
        ipv4: address.ipv4,
        ipv6: address.ipv6,
        next_key_rotation_at: nextKeyRotationAt(now, days),
      })
      .where('id', '=', device.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordKeyRotated(tx, device, after, null, { keepPrevious: true });
    await this.queueConfigMail(tx, after, true, true);
    return true;
  }

  /** The wg-quick file of a server-keyed device; its owner only. */
  async config(caller: Caller, deviceId: string): Promise<{ file_name: string; config: string }> {
    const { device } = await this.deps.db.transaction().execute((tx) => this.deviceFor(tx, caller, deviceId, 'config'));
    return this.configOf(device);
  }

  /** Two single-use links (the file and its QR code) for a device the caller may see. */
  async issueConfigLinks(caller: Caller, deviceId: string) {
    const { device } = await this.deps.db.transaction().execute((tx) => this.deviceFor(tx, caller, deviceId, 'config'));
    await this.configOf(device);
    const tokens = { conf: newLinkToken(), qr: newLinkToken() };
    const expiresAt = new Date(Date.now() + configLinkSeconds * 1000);
    await this.deps.db
      .insertInto('config_links')
      .values(
        (['conf', 'qr'] as const).map((format) => ({
          token_hash: hashLinkToken(tokens[format]),
          device_id: device.id,
          format,
          expires_at: expiresAt,
        })),
      )
      .execute();
    return { conf_token: tokens.conf, qr_token: tokens.qr, expires_in: configLinkSeconds };
  }

  /** Spends a link: the config once, for the device and format it was made for, within its minute. */
  async configByLink(input: { device_id: string; token: string; format: 'conf' | 'qr' }) {
    const spent = await this.deps.db
      .updateTable('config_links')
      .set({ used_at: new Date() })
      .where('token_hash', '=', hashLinkToken(input.token))
      .where('device_id', '=', input.device_id)
      .where('format', '=', input.format)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning('device_id')
      .executeTakeFirst();
    if (!spent) {
      throw new AppError(
        'link_expired',
        'This download link has expired or was used. Open the config again from your devices.',
      );
    }
    const device = await this.deps.db
      .selectFrom('devices')
      .selectAll()
      .where('id', '=', spent.device_id)
      .executeTakeFirst();
    if (!device) throw notFound();
    return this.configOf(device);
  }

  private async configOf(device: Device): Promise<{ file_name: string; config: string }> {
    if (!device.public_key) {
      throw new AppError('conflict', 'This device\'s keys were revoked. Use "Request key" to make a new one.');
    }
    if (!device.private_key_sealed || !device.node_id) {
      throw new AppError(
        'conflict',
        'This device was set up with a key made in your browser, so only that browser has its private key. Use "Request key" to make a new one.',
      );
    }
    const node = await this.deps.db
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', device.node_id)
      .executeTakeFirstOrThrow();
    return { file_name: configFileName(device.name), config: this.render(device, node) };
  }

  /** Links past their minute are of no use to anyone. */
  async pruneConfigLinks(): Promise<void> {
    await this.deps.db
      .deleteFrom('config_links')
      .where('expires_at', '<', new Date(Date.now() - 3600_000))
      .execute();
  }

  /** Everything the browser needs to write the file itself when it holds the private key. */
  async peerInfo(caller: Caller, deviceId: string) {
    const { device } = await this.deps.db.transaction().execute((tx) => this.deviceFor(tx, caller, deviceId, 'config'));
    if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
    const node = await this.deps.db
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', device.node_id)
      .executeTakeFirstOrThrow();
    return {
      file_name: configFileName(device.name),
      addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      dns: this.deps.dns,
      server_public_key: node.public_key,
      endpoint: node.endpoint,
    };
  }

  private render(device: Device, node: Node): string {
    return renderClientConfig({
      deviceName: device.name,
      privateKey: decryptPrivateKey(device.private_key_sealed!, this.deps.vaultKey, device.id),
      addresses: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      dns: this.deps.dns,
      serverPublicKey: node.public_key,
      endpoint: node.endpoint,
    });
  }

  /**
   * Queues the configuration mail in the same transaction as the change that made it: the mail
   * queue sends it (retrying) to the device's person once their address is confirmed. Answers
   * whether a mail is on its way: a key made in the browser cannot be mailed (the server never
   * had it), nor can anything go to an address that is not confirmed.
   */
  private async queueConfigMail(tx: Db, device: Device, rotated: boolean, scheduled = false): Promise<boolean> {
    if (!device.private_key_sealed || !device.key_created_at) return false;
    await queueMail(tx, configMailKind, {
      deviceId: device.id,
      keyCreatedAt: new Date(device.key_created_at).toISOString(),
      rotated,
      ...(scheduled ? { graceHours: keyRotationGraceHours } : {}),
    });
    return true;
  }

  /**
   * Renders a queued configuration mail now: nothing when the device is gone, its key changed
   * since (a newer mail carries the new one); `mailNotYet` while its person's address is not
   * confirmed (it goes once it is).
   */
  async renderConfigMail(payload: Record<string, unknown>): Promise<MailMessage | null | typeof mailNotYet> {
    const device = await this.deps.db
      .selectFrom('devices')
      .selectAll()
      .where('id', '=', String(payload.deviceId))
      .executeTakeFirst();
    if (!device?.private_key_sealed || !device.node_id || !device.key_created_at) return null;
    if (new Date(device.key_created_at).toISOString() !== payload.keyCreatedAt) return null;
    const address = await this.deps.rpc.request(mailAddressRpc, { user_id: device.user_id });
    // Not confirmed yet: the mail waits for it (identity.user.verified makes it due at once).
    if (!address.verified) return mailNotYet;
    const node = await this.deps.db
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', device.node_id)
      .executeTakeFirstOrThrow();
    const config = this.render(device, node);
    return deviceConfigMail({
      to: address.email,
      deviceName: device.name,
      platform: device.platform as Platform,
      fileName: configFileName(device.name),
      config,
      qrPng: await configQrPng(config),
      rotated: payload.rotated === true,
      graceHours: typeof payload.graceHours === 'number' ? payload.graceHours : undefined,
    });
  }
}
