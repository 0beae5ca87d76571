import { sql, type Insertable, type Kysely } from 'kysely';
import type { ResolverHealth } from '@qw/contracts';
import type { Node, NodesTable, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The node a placed device is on (placed devices always have one). */
export function nodeOf(db: Db, nodeId: string): Promise<Node> {
  return db.selectFrom('nodes').selectAll().where('id', '=', nodeId).executeTakeFirstOrThrow();
}

export async function nodesById(db: Db, ids: Array<string | null>): Promise<Map<string, Node>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (wanted.length === 0) return new Map();
  const nodes = await db.selectFrom('nodes').selectAll().where('id', 'in', wanted).execute();
  return new Map(nodes.map((node) => [node.id, node]));
}

/**
 * Registrations take this lock (others still read): two new nodes never pick the same index, and
 * a name registering twice at once becomes one node.
 */
export async function lockNodeRegistry(tx: Db): Promise<void> {
  await sql`lock table nodes in share row exclusive mode`.execute(tx);
}

export function nodeByName(db: Db, name: string): Promise<Node | undefined> {
  return db.selectFrom('nodes').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function usedNodeIndexes(tx: Db): Promise<number[]> {
  return (await tx.selectFrom('nodes').select('node_index').execute()).map((n) => n.node_index);
}

export type NodeAnnouncement = Pick<
  Insertable<NodesTable>,
  'region' | 'endpoint' | 'public_key' | 'ip' | 'ssh_user' | 'ssh_port' | 'tags' | 'city' | 'capacity' | 'egress'
>;

/** A known node announced itself again: what it said now, and seen now. */
export async function updateAnnouncedNode(tx: Db, nodeId: string, announced: NodeAnnouncement): Promise<void> {
  await tx
    .updateTable('nodes')
    .set({ ...announced, last_seen_at: new Date() })
    .where('id', '=', nodeId)
    .execute();
}

/**
 * A host of a server added in the console registered: its key and its egress (facts of the host),
 * active, enrolled (the first time), seen now.
 */
export async function activateEnrolledNode(tx: Db, nodeId: string, publicKey: string, egress: string[]): Promise<void> {
  const now = new Date();
  await tx
    .updateTable('nodes')
    .set((eb) => ({
      public_key: publicKey,
      egress,
      status: 'active',
      enrolled_at: eb.fn.coalesce('enrolled_at', eb.val(now)),
      last_seen_at: now,
    }))
    .where('id', '=', nodeId)
    .execute();
}

export function insertNode(tx: Db, values: Insertable<NodesTable>): Promise<Node> {
  return tx.insertInto('nodes').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The node of that name is seen now; false when no node has that name. */
export async function markNodeSeen(db: Db, name: string): Promise<boolean> {
  const seen = await db
    .updateTable('nodes')
    .set({ last_seen_at: new Date() })
    .where('name', '=', name)
    .executeTakeFirst();
  return seen.numUpdatedRows > 0n;
}

/** A node agent's report: seen now, and what runs there since when. False when no node has that name. */
export async function recordNodeReport(
  db: Db,
  name: string,
  report: { agentVersion: string; startedAt: Date; resolver?: ResolverHealth | undefined },
): Promise<boolean> {
  const result = await db
    .updateTable('nodes')
    .set({
      last_seen_at: sql<Date>`now()`,
      agent_version: report.agentVersion,
      agent_started_at: report.startedAt,
      ...(report.resolver
        ? { resolver_state: report.resolver.state, resolver_restarts: report.resolver.restarts }
        : { resolver_state: null, resolver_restarts: null }),
    })
    .where('name', '=', name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * One page (and one row more) of the peers a node should carry, in key order: its active devices
 * with a key, the keys a scheduled rotation replaced until their grace period ends (their
 * devices are active: suspending one ends it), and the peers moved devices left on it until they
 * are seen through their new node (suspending ends those too).
 *
 * Each of the three is bounded (after the cursor, in key order, one page) before they are merged:
 * the devices' part is then a walk of `devices_node_key` (node, key) that stops after a page.
 * Bounded only after the union, Postgres read every device of the node past the cursor (or the
 * whole table) and sorted them for each page: 25 pages of a node of 50,000 took 1.4 s of queries,
 * and they take 0.34 s so (migration 2027_07_10_100000_desired_peer_pages).
 */
export function desiredPeerRows(
  db: Db,
  nodeName: string,
  after: string | undefined,
  limit: number,
  publicKeys?: readonly string[],
) {
  const keys = publicKeys ? (publicKeys.length > 0 ? [...publicKeys] : ['']) : undefined;
  // The node by its name in the statement itself (none: no rows), so the caller need not look it up first.
  const nodeId = db.selectFrom('nodes').select('id').where('name', '=', nodeName);
  /** One part's page: after the cursor (or only the keys asked), in key order, a row more than the page. */
  const onePage =
    (column: 'public_key' | 'm.public_key') =>
    <Q>(query: Q): Q => {
      // biome-ignore lint/suspicious/noExplicitAny: the column belongs to each of the three parts' own tables
      let page = query as any;
      if (after !== undefined) page = page.where(column, '>', after);
      if (keys !== undefined) page = page.where(column, 'in', keys);
      return page.orderBy(column).limit(limit + 1);
    };
  const current = db
    .selectFrom('devices')
    .select(['public_key', 'ipv4', 'ipv6', 'id as device_id', 'preshared_key_sealed', 'preshared_key_sealed_by'])
    .where('node_id', '=', nodeId)
    .where('is_active', '=', true)
    .where('public_key', 'is not', null)
    .$call(onePage('public_key'));
  const retiring = db
    .selectFrom('retiring_keys')
    .select(['public_key', 'ipv4', 'ipv6', 'device_id', 'preshared_key_sealed', 'preshared_key_sealed_by'])
    .where('node_id', '=', nodeId)
    .$call(onePage('public_key'));
  // A moved device keeps its key, and so its preshared key: the device's own, while it still has that key.
  const moved = db
    .selectFrom('moved_peers as m')
    .leftJoin('devices as d', (join) =>
      join.onRef('d.id', '=', 'm.device_id').onRef('d.public_key', '=', 'm.public_key'),
    )
    .select(['m.public_key', 'm.ipv4', 'm.ipv6', 'm.device_id', 'd.preshared_key_sealed', 'd.preshared_key_sealed_by'])
    .where('m.node_id', '=', nodeId)
    .$call(onePage('m.public_key'));
  // Each part a subquery of its own, so its order and limit stay its own.
  return db
    .selectFrom(
      db
        .selectFrom(current.as('c'))
        .selectAll()
        .unionAll(db.selectFrom(retiring.as('r')).selectAll())
        .unionAll(db.selectFrom(moved.as('m')).selectAll())
        .as('peers'),
    )
    .selectAll()
    .orderBy('public_key')
    .limit(limit + 1)
    .execute();
}

/**
 * Issue #26: a device (by the column holding its id) that is not of `testIds`'s people (the test
 * accounts identity named); none named, every device.
 */
function notTestDevice(column: string, testIds: readonly string[]) {
  if (testIds.length === 0) return sql<boolean>`true`;
  return sql<boolean>`not exists (select 1 from devices t where t.id = ${sql.ref(column)} and t.user_id = any(${[...testIds]}::uuid[]))`;
}

/**
 * Peers placed on each node: its active devices with a key (what it should carry, less retiring
 * keys), not counting test accounts' devices when `testIds` names them.
 */
export async function peersPlaced(
  db: Db,
  nodeIds: string[],
  testIds: readonly string[] = [],
): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('devices')
    .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('node_id', 'in', nodeIds)
    .where('is_active', '=', true)
    .where('public_key', 'is not', null)
    .$if(testIds.length > 0, (q) => q.where(sql<boolean>`not (devices.user_id = any(${[...testIds]}::uuid[]))`))
    .groupBy('node_id')
    .execute();
  return new Map(rows.map((row) => [row.node_id!, Number(row.n)]));
}

/**
 * The test accounts' peers on each node (issue #26): their placed devices and their keys in a
 * rotation's grace, which the Servers page counts apart while "Hide test accounts" is on.
 */
export async function peersOfTestAccounts(
  db: Db,
  nodeIds: string[],
  testIds: readonly string[],
): Promise<Map<string, { placed: number; retiring: number }>> {
  if (nodeIds.length === 0 || testIds.length === 0) return new Map();
  const rows = await sql<{ node_id: string; placed: string; retiring: string }>`
    select node_id, count(*) filter (where retiring is false) as placed, count(*) filter (where retiring) as retiring
      from (
        select d.node_id, false as retiring from devices d
         where d.node_id = any(${nodeIds}::uuid[]) and d.is_active and d.public_key is not null
           and d.user_id = any(${[...testIds]}::uuid[])
        union all
        select r.node_id, true as retiring from retiring_keys r join devices d on d.id = r.device_id
         where r.node_id = any(${nodeIds}::uuid[]) and d.user_id = any(${[...testIds]}::uuid[])
      ) peers
     group by node_id`.execute(db);
  return new Map(rows.rows.map((row) => [row.node_id, { placed: Number(row.placed), retiring: Number(row.retiring) }]));
}

/**
 * Keys each node still carries for a scheduled rotation's grace period (their devices' new keys
 * are counted in `peersPlaced`): the node's peers are the sum of both.
 */
export async function peersRetiring(
  db: Db,
  nodeIds: string[],
  testIds: readonly string[] = [],
): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('retiring_keys')
    .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('node_id', 'in', nodeIds)
    .where(notTestDevice('retiring_keys.device_id', testIds))
    .groupBy('node_id')
    .execute();
  return new Map(rows.map((row) => [row.node_id, Number(row.n)]));
}

export function nodesByName(db: Db): Promise<Node[]> {
  return db.selectFrom('nodes').selectAll().orderBy('name').execute();
}

/** The node, locked for the transaction: its drains and its address leases happen one after another. */
export function lockNode(tx: Db, nodeId: string): Promise<Node | undefined> {
  return tx.selectFrom('nodes').selectAll().where('id', '=', nodeId).forUpdate().executeTakeFirst();
}

export function setNodeDraining(tx: Db, nodeId: string, draining: boolean): Promise<Node> {
  return tx.updateTable('nodes').set({ draining }).where('id', '=', nodeId).returningAll().executeTakeFirstOrThrow();
}

/**
 * Telemetry's newest handshakes, kept on each device: a handshake older than the one stored
 * changes nothing, and a device that is gone is skipped.
 */
export async function recordLatestHandshakes(tx: Db, latest: Map<string, string>): Promise<void> {
  await sql`
    update devices set latest_handshake = seen.at
      from unnest(${[...latest.keys()]}::uuid[], ${[...latest.values()]}::timestamptz[]) as seen(id, at)
     where devices.id = seen.id and (devices.latest_handshake is null or devices.latest_handshake < seen.at)`.execute(
    tx,
  );
}

/** Peers each node keeps for devices that moved away from it (until seen through their new node or expired). */
export async function peersMoved(
  db: Db,
  nodeIds: string[],
  testIds: readonly string[] = [],
): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('moved_peers')
    .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('node_id', 'in', nodeIds)
    .where(notTestDevice('moved_peers.device_id', testIds))
    .groupBy('node_id')
    .execute();
  return new Map(rows.map((row) => [row.node_id, Number(row.n)]));
}

/** Devices on each node that a drain could not move for want of room in the region (held). */
export async function devicesHeld(
  db: Db,
  nodeIds: string[],
  testIds: readonly string[] = [],
): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('devices')
    .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('node_id', 'in', nodeIds)
    .where('held_since', 'is not', null)
    .$if(testIds.length > 0, (q) => q.where(sql<boolean>`not (devices.user_id = any(${[...testIds]}::uuid[]))`))
    .groupBy('node_id')
    .execute();
  return new Map(rows.map((row) => [row.node_id!, Number(row.n)]));
}
