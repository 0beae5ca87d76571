import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError, nodeRegistered, normaliseRegion, isUuid } from '@qw/contracts';
import { addToOutbox, type BusConnection } from '@qw/platform/bus';
import { nodeSubnets } from '@qw/wireguard';
import type { Node, ProvisioningDatabase } from '../database.ts';
import { recordOperatorAction } from '../admin/operator-actions.repository.ts';
import { releaseHeldDevices } from '../drain/drain.repository.ts';
import { ensureNodeConsumer } from './node-consumer.ts';
import { egressAddresses, keepsOperatorSettings, registrationRefusal } from './enrolment-rules.ts';
import type { SealingKeys } from '@qw/wireguard';
import { openPresharedKey } from '../keys/preshared-keys.ts';
import { desiredPeerPage, firstFreeNodeIndex, nodeAddressing } from './node-rules.ts';
import {
  activateEnrolledNode,
  desiredPeerRows,
  insertNode,
  lockNode,
  lockNodeRegistry,
  markNodeSeen,
  nodeByName,
  setNodeDraining,
  updateAnnouncedNode,
  usedNodeIndexes,
} from './nodes.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

export type NodeRegistration = {
  name: string;
  region: string;
  endpoint: string;
  public_key: string;
  ip: string;
  ssh_user?: string | undefined;
  ssh_port?: number | undefined;
  tags: string[];
  city?: string | undefined;
  capacity?: number | undefined;
  /** The public addresses its tunnel traffic leaves from; unsaid (an older agent), none. */
  egress?: string[] | undefined;
};

/**
 * A node agent announces itself; a known name keeps its id, index and subnets. A server added in
 * the console (pending, or enrolled before) keeps the operator's region, city, endpoint, tags and
 * capacity, takes the host's public key and egress addresses and becomes active; a retired one is refused. A name
 * nobody added (a development or test node, a node from before enrolment) registers as it says.
 * Its durable consumer (the node's peer changes) is declared here, idempotently, after the node's row
 * commits and before the answer: the agent reads it as soon as it is answered, and its own
 * credentials may not make it. Nothing on the bus is asked while the row lock is held.
 */
export async function registerNode(bus: BusConnection, db: Db, input: NodeRegistration, dns: string[]) {
  const addressing = await recordNode(db, input, dns);
  await ensureNodeConsumer(bus, input.name);
  return addressing;
}

async function recordNode(db: Db, input: NodeRegistration, dns: string[]) {
  return db.transaction().execute(async (tx) => {
    await lockNodeRegistry(tx);
    const announced = {
      region: normaliseRegion(input.region),
      endpoint: input.endpoint,
      public_key: input.public_key,
      ip: input.ip,
      ssh_user: input.ssh_user ?? null,
      ssh_port: input.ssh_port ?? null,
      tags: input.tags,
      egress: egressAddresses(input.egress ?? []),
      // Said by the agent (NODE_CITY, NODE_CAPACITY); unsaid, a known node keeps what it had.
      ...(input.city !== undefined ? { city: input.city } : {}),
      ...(input.capacity !== undefined ? { capacity: input.capacity } : {}),
    };
    let node = await nodeByName(tx, input.name);
    if (node) {
      const refused = registrationRefusal(node.status);
      if (refused) throw refused;
      // A server added in the console keeps what the operator set; its host brings only its key.
      if (keepsOperatorSettings(node)) await activateEnrolledNode(tx, node.id, input.public_key, announced.egress);
      else await updateAnnouncedNode(tx, node.id, announced);
    } else {
      const index = firstFreeNodeIndex(await usedNodeIndexes(tx));
      const subnets = nodeSubnets(index);
      node = await insertNode(tx, {
        id: randomUUID(),
        name: input.name,
        ...announced,
        node_index: index,
        ipv4_cidr: subnets.ipv4Cidr,
        ipv6_cidr: subnets.ipv6Cidr,
        last_seen_at: new Date(),
      });
    }
    await addToOutbox(tx, nodeRegistered, { nodeId: node.id, name: node.name, region: node.region });
    return nodeAddressing(node.id, node.node_index, dns);
  });
}

/**
 * The peers the node should have, one page at a time in key order; the first page of a
 * reconcile counts as the node being seen.
 */
export async function desiredPeers(
  db: Db,
  vault: SealingKeys,
  nodeName: string,
  input: { after?: string | undefined; limit?: number | undefined; public_keys?: string[] | undefined },
) {
  const limit = input.limit ?? 2000;
  // The node's check (or its being seen) and its peers at once: a peer change's preshared key is on
  // the path from "add device" to the peer being live, and each round trip to Postgres is on it.
  const [registered, rows] = await Promise.all([
    !input.after && !input.public_keys
      ? markNodeSeen(db, nodeName)
      : nodeByName(db, nodeName).then((node) => node !== undefined),
    desiredPeerRows(db, nodeName, input.after, limit, input.public_keys),
  ]);
  if (!registered) throw new AppError('not_found', 'This node has not registered.');
  // A key a scheduled rotation left for its grace period may still be sealed by a sealing key
  // replaced since (the re-sealing command does devices, not these day-long rows): that peer goes
  // without its preshared key rather than the whole page failing.
  return desiredPeerPage(rows, limit, (row) => {
    try {
      return openPresharedKey(vault, row.device_id, row);
    } catch {
      return null;
    }
  });
}

/**
 * Drains a node (no new placements; its devices are then moved by `Drains`) or opens it again
 * (the devices held on it wait no more), recorded for the console's audit either way, under the
 * node's row lock; answers the node and the audit row, which the drain's outcome is added to.
 */
export async function drainNode(
  db: Db,
  input: { actorId: string; nodeId: string; draining: boolean },
): Promise<{ node: Node; actionId: string }> {
  const nodeId = input.nodeId.toLowerCase();
  const notFound = () => new AppError('not_found', 'Server not found.');
  if (!isUuid(nodeId)) throw notFound();
  return db.transaction().execute(async (tx) => {
    const before = await lockNode(tx, nodeId);
    if (!before) throw notFound();
    const after = await setNodeDraining(tx, nodeId, input.draining);
    const released = input.draining ? 0 : await releaseHeldDevices(tx, nodeId);
    const actionId = await recordOperatorAction(tx, {
      actorId: input.actorId,
      kind: input.draining ? 'node.drained' : 'node.undrained',
      targetKind: 'node',
      targetId: nodeId,
      details: { changed: before.draining !== input.draining, name: before.name, ...(released ? { released } : {}) },
    });
    return { node: after, actionId };
  });
}
