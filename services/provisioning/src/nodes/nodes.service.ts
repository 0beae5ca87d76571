import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { AppError, nodeRegistered } from '@qw/contracts';
import { addToOutbox, type BusConnection } from '@qw/platform/bus';
import { deviceAddressCidrs, nodeSubnets, MAX_NODES } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../database.ts';
import { ensureNodeConsumer } from './node-consumer.ts';

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
};

/**
 * A node agent announces itself; a known name keeps its id, index and subnets. Its durable
 * consumer (the node's peer changes) is declared here, idempotently, after the node's row
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
    await sql`lock table nodes in share row exclusive mode`.execute(tx);
    let node = await tx.selectFrom('nodes').selectAll().where('name', '=', input.name).executeTakeFirst();
    if (node) {
      await tx
        .updateTable('nodes')
        .set({
          region: input.region,
          endpoint: input.endpoint,
          public_key: input.public_key,
          ip: input.ip,
          ssh_user: input.ssh_user ?? null,
          ssh_port: input.ssh_port ?? null,
          tags: input.tags,
          last_seen_at: new Date(),
        })
        .where('id', '=', node.id)
        .execute();
    } else {
      const used = new Set((await tx.selectFrom('nodes').select('node_index').execute()).map((n) => n.node_index));
      let index = 0;
      while (used.has(index)) index++;
      if (index >= MAX_NODES) throw new AppError('conflict', 'Every node subnet is taken.');
      const subnets = nodeSubnets(index);
      node = await tx
        .insertInto('nodes')
        .values({
          id: randomUUID(),
          name: input.name,
          region: input.region,
          ip: input.ip,
          ssh_user: input.ssh_user ?? null,
          ssh_port: input.ssh_port ?? null,
          endpoint: input.endpoint,
          public_key: input.public_key,
          node_index: index,
          ipv4_cidr: subnets.ipv4Cidr,
          ipv6_cidr: subnets.ipv6Cidr,
          tags: input.tags,
          last_seen_at: new Date(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    await addToOutbox(tx, nodeRegistered, { nodeId: node.id, name: node.name, region: node.region });
    const subnets = nodeSubnets(node.node_index);
    return {
      node_id: node.id,
      ipv4_cidr: subnets.ipv4Cidr,
      ipv6_cidr: subnets.ipv6Cidr,
      node_ipv4: subnets.nodeIpv4,
      node_ipv6: subnets.nodeIpv6,
      dns,
    };
  });
}

/** The peers the node should have (active devices with a key), one page at a time in key order. */
export async function desiredPeers(db: Db, nodeName: string, after?: string, limit = 2000) {
  const node = await db.selectFrom('nodes').select('id').where('name', '=', nodeName).executeTakeFirst();
  if (!node) throw new AppError('not_found', 'This node has not registered.');
  const nodeId = node.id;
  if (!after) await db.updateTable('nodes').set({ last_seen_at: new Date() }).where('id', '=', nodeId).execute();
  const current = db
    .selectFrom('devices')
    .select(['public_key', 'ipv4', 'ipv6'])
    .where('node_id', '=', nodeId)
    .where('is_active', '=', true)
    .where('public_key', 'is not', null);
  // Keys a scheduled rotation replaced stay until their grace period ends (their devices are active:
  // suspending one ends it).
  const retiring = db.selectFrom('retiring_keys').select(['public_key', 'ipv4', 'ipv6']).where('node_id', '=', nodeId);
  let query = db.selectFrom(current.unionAll(retiring).as('peers')).selectAll();
  if (after) query = query.where('public_key', '>', after);
  const rows = await query
    .orderBy('public_key')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return {
    peers: page.map((row) => ({ public_key: row.public_key!, allowed_ips: deviceAddressCidrs(row.ipv4!, row.ipv6!) })),
    next: rows.length > limit ? page.at(-1)!.public_key! : null,
  };
}
