import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  deviceRateLimits,
  keyRotationGraceHours,
  nextKeyRotationAt,
  type Caller,
  type DeviceView,
  type KeyRotationDays,
} from '@qw/contracts';
import { takeRateLimited } from '@qw/platform/limits';
import { generateKeyPair, type SealingKeys } from '@qw/wireguard';
import { validPublicKey } from '../devices/device-rules.ts';
import type { Device, ProvisioningDatabase } from '../database.ts';
import type { Clock } from '../clock.ts';
import { queueConfigMail } from '../device-events/config-mail-job.ts';
import { recordKeyRotated, retireKeys } from '../device-events/device-events.ts';
import { deviceFor } from '../devices/device-for.ts';
import { requireUnusedPublicKey } from '../nodes/peer-keys.ts';
import { view, viewOf } from '../devices/device-view.ts';
import { nodeOf } from '../nodes/nodes.repository.ts';
import { leaseAddress } from '../addresses/addresses.service.ts';
import { keyRotationRefusal, scheduledRotationStep } from './key-rules.ts';
import { updateDevice } from '../devices/devices.repository.ts';
import { keepRetiringKey, lockDueRotations } from './keys.repository.ts';
import { newPresharedKey } from './preshared-keys.ts';

export type KeysDeps = {
  db: Kysely<ProvisioningDatabase>;
  mailQueue: { wake(): Promise<unknown> };
  logger: Logger;
  vault: SealingKeys;
  /** Provisioning's time: scheduled rotations and grace periods read it (a test clock in tests). */
  clock: Clock;
};

/** A device's keys: "Request key", scheduled rotation and the grace period of the key it replaced. */
export class KeysService {
  /** The rotation pass in progress here, if any: passes in one process run one after another. */
  private rotationPass: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: KeysDeps) {}

  /**
   * "Request key": a new key pair (or the browser's new public key), the node updated, and the
   * new configuration emailed. The old key stops working as soon as the node applies the change.
   */
  async requestKey(
    caller: Caller,
    input: { device_id: string; public_key?: string | undefined },
  ): Promise<{ device: DeviceView; emailed: boolean }> {
    const publicKey = validPublicKey(input.public_key);
    const rotated = await this.deps.db.transaction().execute(async (tx) => {
      const operation = publicKey === undefined ? 'request-key' : 'choose-key';
      const { device } = await deviceFor(tx, caller, input.device_id, operation);
      if (publicKey !== undefined) await requireUnusedPublicKey(tx, publicKey, device.id);
      if (!device.node_id) throw new AppError('conflict', 'This device has no server yet.');
      await takeRateLimited(
        tx,
        [{ key: `devices:key:${device.id}`, limit: deviceRateLimits.keyRequests }],
        (wait) => `This device got several new keys already. Try again in ${wait}.`,
      );
      const keys = publicKey ? { publicKey, privateKey: null } : generateKeyPair();
      // A schedule counts from the newest key; a key made in the browser ends it (the service could
      // not make the next one).
      const days = keys.privateKey === null ? null : (device.key_rotation_days as KeyRotationDays | null);
      const sealed = keys.privateKey ? this.deps.vault.seal(keys.privateKey, device.id) : null;
      const after = await updateDevice(tx, device.id, {
        public_key: keys.publicKey,
        private_key_sealed: sealed?.sealed ?? null,
        private_key_sealed_by: sealed?.keyId ?? null,
        ...newPresharedKey(this.deps.vault, device.id),
        client_keys: keys.privateKey === null,
        key_created_at: new Date(),
        key_rotation_days: days,
        next_key_rotation_at: days ? nextKeyRotationAt(await this.deps.clock.now(), days) : null,
      });
      await recordKeyRotated(tx, device, after, caller.userId);
      const queued = await queueConfigMail(tx, after, true);
      return { device: after, node: await nodeOf(tx, after.node_id!), queued };
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
      const { device } = await deviceFor(tx, caller, input.device_id, 'request-key');
      const days = input.every_days;
      const refusal = keyRotationRefusal(device, days);
      if (refusal) throw refusal;
      if (days === device.key_rotation_days) return device;
      return updateDevice(tx, device.id, {
        key_rotation_days: days,
        next_key_rotation_at: days ? nextKeyRotationAt(now, days) : null,
      });
    });
    return viewOf(this.deps.db, device);
  }

  /**
   * What the clock made due: keys whose grace period ended leave their nodes, then every device
   * whose scheduled rotation is due gets a new key (in batches, each device locked, so replicas
   * share the work). Runs on a timer and right after a test moves the clock. A pass asked for
   * while another runs in this process waits for it: rows that pass holds are skipped by the
   * lock, so without the wait a caller could be answered before the rotations it asked for exist.
   * `waitForLocked`: a device locked by anything else (a handshake being recorded) is waited for,
   * not left to the next pass, so everything due is done when the pass answers (the test clock).
   */
  runKeyRotations(options: { waitForLocked?: boolean } = {}): Promise<{ rotated: number; retired: number }> {
    const pass = this.rotationPass.then(() => this.rotateDueKeys(options));
    this.rotationPass = pass.catch(() => undefined);
    return pass;
  }

  private async rotateDueKeys(options: { waitForLocked?: boolean }): Promise<{ rotated: number; retired: number }> {
    const now = await this.deps.clock.now();
    const retired = await this.deps.db.transaction().execute((tx) => retireKeys(tx, { endedBy: now }));
    let rotated = 0;
    const batchSize = 50;
    for (;;) {
      const handled = await this.deps.db.transaction().execute(async (tx) => {
        const due = await lockDueRotations(tx, now, batchSize, options);
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
   * address and the old one keeps its own until the grace period ends. Answers whether it rotated.
   */
  private async rotateOnSchedule(tx: Kysely<ProvisioningDatabase>, device: Device, now: Date): Promise<boolean> {
    const step = scheduledRotationStep(device);
    const days = device.key_rotation_days as KeyRotationDays;
    if (step !== 'rotate') {
      await updateDevice(
        tx,
        device.id,
        step === 'reschedule'
          ? { next_key_rotation_at: nextKeyRotationAt(now, days) }
          : { key_rotation_days: null, next_key_rotation_at: null },
      );
      return false;
    }
    await retireKeys(tx, { deviceIds: [device.id] });
    const { node, address } = await leaseAddress(tx, device.node_id!);
    await keepRetiringKey(tx, {
      public_key: device.public_key!,
      device_id: device.id,
      node_id: node.id,
      ipv4: device.ipv4!,
      ipv6: device.ipv6!,
      preshared_key_sealed: device.preshared_key_sealed,
      preshared_key_sealed_by: device.preshared_key_sealed_by,
      expires_at: new Date(now.getTime() + keyRotationGraceHours * 3600_000),
    });
    const keys = generateKeyPair();
    const sealed = this.deps.vault.seal(keys.privateKey, device.id);
    const after = await updateDevice(tx, device.id, {
      public_key: keys.publicKey,
      private_key_sealed: sealed.sealed,
      private_key_sealed_by: sealed.keyId,
      ...newPresharedKey(this.deps.vault, device.id),
      client_keys: false,
      key_created_at: now,
      ipv4: address.ipv4,
      ipv6: address.ipv6,
      next_key_rotation_at: nextKeyRotationAt(now, days),
    });
    await recordKeyRotated(tx, device, after, null, { keepPrevious: true });
    await queueConfigMail(tx, after, true, true);
    return true;
  }
}
