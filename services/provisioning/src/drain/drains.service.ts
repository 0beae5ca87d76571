import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { RegionId } from '@qw/contracts';
import type { Device, ProvisioningDatabase } from '../database.ts';
import { lockDevice, updateDevice } from '../devices/devices.repository.ts';
import { activePlanOf } from '../entitlements/entitlements.repository.ts';
import { moveDevice } from '../placement/move-device.ts';
import { isNodeUp } from '../servers/public-servers-rules.ts';
import { planDrainMoves, type DrainTarget } from './drain-rules.ts';
import {
  countHeldOnNode,
  devicesOnNode,
  drainedNodesWithDevices,
  drainState,
  drainStateForShare,
  holdDevicesOnNode,
  regionNodes,
} from './drain.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** What one pass over a drained node did: devices moved off it, devices left on it waiting for room. */
export type DrainOutcome = { moved: number; held: number; failed: number };

/** Devices read (and targets counted again) per batch. */
const batchSize = 50;

type MoveResult = 'moved' | 'held' | 'gone' | 'stopped';

/**
 * Moves the devices of drained nodes to other nodes of the same region (issue #23), each in a
 * transaction of its own with `moveDevice`; a device no node of the region has room for is held
 * (`held_since`) and stays where it is, still served. The drain itself starts a pass; the task
 * `move-drained-devices` passes over every drained node that still has devices, so held devices
 * move once a node has room, and a pass cut short (a restart) is finished. A pass stops as soon as
 * its node is opened again: each move holds the node's row with a share lock, which the undrain waits for.
 */
export class Drains {
  /** Nodes a pass is working on in this process: a second pass there would count the same room twice. */
  private readonly running = new Map<string, Promise<DrainOutcome>>();

  constructor(private readonly deps: { db: Db; logger: Logger; afterMoves?: () => void }) {}

  /** One pass over the node's devices (joining the pass under way, if any). */
  moveOff(nodeId: string, actorId: string | null = null): Promise<DrainOutcome> {
    const running = this.running.get(nodeId);
    if (running) return running;
    const pass = this.pass(nodeId, actorId).finally(() => this.running.delete(nodeId));
    this.running.set(nodeId, pass);
    return pass;
  }

  /** A pass over every drained node with devices on it (the periodic task). */
  async retryAll(): Promise<void> {
    for (const nodeId of await drainedNodesWithDevices(this.deps.db)) {
      const outcome = await this.moveOff(nodeId);
      if (outcome.moved > 0 || outcome.failed > 0)
        this.deps.logger.info({ nodeId, ...outcome }, 'drained node: devices moved');
    }
  }

  private async pass(nodeId: string, actorId: string | null): Promise<DrainOutcome> {
    const { db } = this.deps;
    const outcome: DrainOutcome = { moved: 0, held: 0, failed: 0 };
    const node = await drainState(db, nodeId);
    if (!node?.draining) return outcome;
    const gamingOf = this.gamingPlans();
    let after: string | undefined;
    try {
      for (;;) {
        const devices = await devicesOnNode(db, nodeId, after, batchSize);
        if (devices.length === 0) break;
        after = devices.at(-1)!.id;
        const targets = await this.targets(nodeId, node.region);
        if (!targets.some((target) => target.devices < target.capacity)) {
          // No room anywhere in the region: the rest of the node waits, in one statement.
          if ((await this.holdRest(nodeId)) === 'stopped') return outcome;
          break;
        }
        const wanted = await Promise.all(devices.map(async (d) => ({ id: d.id, gaming: await gamingOf(d) })));
        for (const { deviceId, targetId } of planDrainMoves(wanted, targets)) {
          const result = await this.moveOne(nodeId, deviceId, targetId, actorId).catch((error: unknown) => {
            // A target drained or filled meanwhile, or a deadlock with another move: the next pass tries again.
            this.deps.logger.warn({ err: error, nodeId, deviceId }, 'drain: a device could not be moved');
            return 'failed' as const;
          });
          if (result === 'stopped') return outcome;
          if (result === 'moved') outcome.moved++;
          if (result === 'failed') outcome.failed++;
        }
      }
    } finally {
      if (outcome.moved > 0) this.deps.afterMoves?.();
    }
    outcome.held = await countHeldOnNode(db, nodeId);
    return outcome;
  }

  /** The other nodes of the region that take devices now, with the devices on each. */
  private async targets(nodeId: string, region: RegionId): Promise<DrainTarget[]> {
    const now = new Date();
    return (await regionNodes(this.deps.db, region))
      .filter((node) => node.id !== nodeId && isNodeUp(node, now))
      .map((node) => ({ id: node.id, tags: node.tags, devices: node.devices, capacity: node.capacity }));
  }

  /** Whether a device's owner is on the Gaming plan, asked once per owner in a pass. */
  private gamingPlans() {
    const known = new Map<string, Promise<boolean>>();
    return (device: Device) => {
      const key = `${device.org_id ?? ''}:${device.user_id}`;
      let gaming = known.get(key);
      if (!gaming) {
        gaming = activePlanOf(this.deps.db, { userId: device.user_id, orgId: device.org_id }).then(
          (plan) => plan === 'gaming',
        );
        known.set(key, gaming);
      }
      return gaming;
    };
  }

  private moveOne(nodeId: string, deviceId: string, targetId: string | null, actorId: string | null) {
    const now = new Date();
    return this.deps.db.transaction().execute(async (tx): Promise<MoveResult> => {
      const node = await drainStateForShare(tx, nodeId);
      if (!node?.draining) return 'stopped';
      const device = await lockDevice(tx, deviceId);
      if (!device || device.node_id !== nodeId) return 'gone';
      if (!targetId) {
        if (!device.held_since) await updateDevice(tx, deviceId, { held_since: now });
        return 'held';
      }
      const moved = await moveDevice(tx, device, targetId, { actorId, now });
      // Read under the target's lock: drained or gone since the batch counted it, the move is undone.
      if (moved.node.draining || moved.node.status !== 'active') throw new Error('the target node was drained');
      return 'moved';
    });
  }

  private holdRest(nodeId: string) {
    const now = new Date();
    return this.deps.db.transaction().execute(async (tx): Promise<'held' | 'stopped'> => {
      const node = await drainStateForShare(tx, nodeId);
      if (!node?.draining) return 'stopped';
      await holdDevicesOnNode(tx, nodeId, now);
      return 'held';
    });
  }
}
