import type { Kysely } from 'kysely';
import type { SealingKeys } from '@qw/wireguard';
import type { Logger } from 'pino';
import {
  AppError,
  deviceOverviewOf,
  type DeviceOverview,
  type DeviceWithStatus,
  fairUseDeviceCeiling,
  requireAdmin,
  requireUserId,
  validDeviceName,
  type Caller,
  type DevicePrivacyInput,
  type DeviceView,
  type RegionChoice,
  type SuspensionLevel,
} from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { Device, ProvisioningDatabase } from '../database.ts';
import { activePlanOf } from '../entitlements/entitlements.repository.ts';
import { requireAccountInGoodStanding } from '../account-standing/account-standing.service.ts';
import { validCountry, validPlatform, validPublicKey } from './device-rules.ts';
import { placeDevice } from '../placement/placement.service.ts';
import { deviceNotFound, deviceRefusal, type DeviceOperation } from './device-access.ts';
import { deviceFor } from './device-for.ts';
import { defaultPrivacy, privacyAfter } from './device-privacy-rules.ts';
import { connectedNow, view, viewOf, withStatus } from './device-view.ts';
import {
  countPersonalDevices,
  deviceById,
  listedPersonalDevices,
  lockDevice,
  personalDeviceStates,
  updateDevice,
} from './devices.repository.ts';
import { lockPersonalDevices, withinPace } from './device-locks.ts';
import { suspensionLevelOf, suspensionReasonOf, suspensionStep } from './suspension-rules.ts';
import {
  recordActivated,
  recordKeysRevoked,
  recordRemoved,
  recordRenamed,
  recordSuspended,
  type SuspensionReason,
} from '../device-events/device-events.ts';
import { usableOrganizationPlan } from '../organizations/organizations.service.ts';
import { afterAskingOwners, askBilling } from '../organizations/owner-answers.ts';
import { recordOperatorAction } from '../admin/operator-actions.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The refusal a personal plan or an activation may get only because the copy of billing's subscriptions is behind. */
const wantsAPlan = (refusal: unknown) => refusal instanceof AppError && refusal.code === 'no_entitlement';

export type DevicesDeps = {
  db: Db;
  rpc: RpcClient;
  mailQueue: { wake(): Promise<unknown> };
  logger: Logger;
  vault: SealingKeys;
};

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

/** Devices: the personal list and add; rename, suspend, activate and remove any device; the operator's device actions. */
export class DevicesService {
  constructor(private readonly deps: DevicesDeps) {}

  /** The caller's own personal devices (org_id null), newest first, with their status. */
  async list(caller: Caller): Promise<DeviceWithStatus[]> {
    const userId = requireUserId(caller);
    return withStatus(this.deps.rpc, await listedPersonalDevices(this.deps.db, userId));
  }

  /** Spec §2's three tiles: Devices, Connected, VPN Status (by the one rule every view uses, contracts' devices.ts). */
  async overview(caller: Caller): Promise<DeviceOverview> {
    // Counts only: connected comes from the device rows, so telemetry is not asked (one query of
    // the three columns the rule reads).
    const now = new Date();
    const states = await personalDeviceStates(this.deps.db, requireUserId(caller));
    return deviceOverviewOf(states.map((row) => ({ is_connected: connectedNow(row, now) })));
  }

  /**
   * "Unlimited devices" under fair use: a ceiling per account and a pace of additions, both far
   * above any household's, so a script cannot fill a node. Checked after everything else, so a
   * refusal for another reason records nothing.
   */
  private async withinFairUse(tx: Db, userId: string): Promise<void> {
    // Parallel adds count one after another, so they cannot all see room for one more.
    await lockPersonalDevices(tx, userId);
    if ((await countPersonalDevices(tx, userId)) >= fairUseDeviceCeiling) {
      throw new AppError(
        'quota_exceeded',
        `Unlimited devices are subject to fair use: up to ${fairUseDeviceCeiling} per account. Remove a device you no longer use, or write to support.`,
      );
    }
    await withinPace(tx, userId);
  }

  /** The person's personal plan, from the copy alone, inside a transaction; a refusal is corrected by `afterAskingBilling`. */
  private async requirePersonalPlan(db: Db, userId: string): Promise<string> {
    const plan = await activePlanOf(db, { userId, orgId: null });
    if (plan) return plan;
    throw new AppError(
      'no_entitlement',
      'Devices come with an active Personal or Gaming plan. Choose a plan in Billing to add devices.',
    );
  }

  /**
   * Billing's events arrive a few milliseconds after a purchase is claimed, so a refusal for want
   * of a plan may only be the copy behind: billing is asked (between transactions, never inside
   * one), its answer kept, and `work` runs once more on the copy, which by then has the plan from
   * billing's answer or from the event that came meanwhile. So a person can use at once what they
   * just bought. The read-your-writes mechanism of organization devices, for this one refusal.
   */
  private afterAskingBilling<T>(
    work: () => Promise<T>,
    ownerOf: () => Promise<{ userId: string | null; orgId: string | null } | null>,
  ): Promise<T> {
    const ask = async () => {
      const owner = await ownerOf();
      if (!owner) return false;
      await askBilling(this.deps.db, this.deps.rpc, owner);
      return true;
    };
    return afterAskingOwners(work, ask, this.deps.logger, wantsAPlan);
  }

  /** Whose plan entitles the device (its organization's, or its person's personal plan), for `afterAskingBilling`. */
  private async entitledOwnerOf(deviceId: string): Promise<{ userId: string | null; orgId: string | null } | null> {
    const device = await deviceById(this.deps.db, deviceId);
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
    // An account the operator suspended holds every device of its person, whoever asks.
    if (active && !device.is_active)
      await requireAccountInGoodStanding(tx, device.user_id, level === 'person' ? 'own' : 'other');
    const step = suspensionStep(device, level, active);
    if (step === 'none') return {};
    if (step === 'activate') {
      if (device.org_id) await usableOrganizationPlan(tx, device.org_id);
      else await this.requirePersonalPlan(tx, device.user_id);
      return { is_active: true, suspended_reason: null, suspended_by: null };
    }
    return { is_active: false, suspended_reason: suspensionReasonOf(level), suspended_by: level };
  }

  async create(
    caller: Caller,
    input: {
      name: string;
      platform: string;
      public_key?: string | undefined;
      region?: RegionChoice | undefined;
      country?: string | undefined;
    } & DevicePrivacyInput,
  ): Promise<DeviceView> {
    const userId = requireUserId(caller);
    const name = validDeviceName(input.name);
    const platform = validPlatform(input.platform);
    const publicKey = validPublicKey(input.public_key);
    const country = validCountry(input.country);
    const privacy = privacyAfter(defaultPrivacy, input);
    const created = await this.afterAskingBilling(
      () =>
        this.deps.db.transaction().execute(async (tx) => {
          await requireAccountInGoodStanding(tx, userId, 'own');
          const plan = await this.requirePersonalPlan(tx, userId);
          await this.withinFairUse(tx, userId);
          return placeDevice(tx, {
            userId,
            orgId: null,
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
        }),
      async () => ({ userId, orgId: null }),
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
    return viewOf(this.deps.db, result);
  }

  private updateOnCopies(
    caller: Caller,
    input: { device_id: string; name?: string | undefined; is_active?: boolean | undefined },
  ): Promise<Device> {
    return this.deps.db.transaction().execute(async (tx) => {
      const operations: DeviceOperation[] = [];
      if (input.name !== undefined) operations.push('rename');
      if (input.is_active !== undefined) operations.push(input.is_active ? 'activate' : 'suspend');
      const { device, access } = await deviceFor(tx, caller, input.device_id, operations[0] ?? 'view');
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
      const after = await updateDevice(tx, device.id, changes);
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
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(deviceId)) throw deviceNotFound();
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
    return this.deps.db.transaction().execute(async (tx) => {
      const device = await lockDevice(tx, deviceId);
      if (!device) throw deviceNotFound();
      let after = device;
      if (action === 'revoke_keys') {
        if (device.public_key) {
          after = await updateDevice(tx, device.id, {
            public_key: null,
            private_key_sealed: null,
            private_key_sealed_by: null,
            preshared_key_sealed: null,
            preshared_key_sealed_by: null,
            client_keys: false,
            key_created_at: null,
          });
          await recordKeysRevoked(tx, device, actorId);
        }
      } else {
        // The highest level: it lifts any suspension, and takes over one already there.
        const changes = await this.suspensionChanges(tx, device, 'operator', action === 'activate');
        if (Object.keys(changes).length > 0) {
          after = await updateDevice(tx, device.id, changes);
          await recordSuspensionChange(tx, device, after, actorId);
        }
      }
      const kind = { activate: 'device.activated', suspend: 'device.suspended', revoke_keys: 'device.keys_revoked' }[
        action
      ];
      await recordOperatorAction(tx, {
        actorId,
        kind,
        targetKind: 'device',
        targetId: device.id,
        details: { changed: after !== device, name: device.name },
      });
      return after;
    });
  }

  /** Deletes the device: its peer leaves the node and its address is free again. */
  async remove(caller: Caller, deviceId: string): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      const { device } = await deviceFor(tx, caller, deviceId, 'remove');
      await tx.deleteFrom('devices').where('id', '=', device.id).execute();
      await recordRemoved(tx, [device], caller.userId);
    });
  }
}
