import { sql, type Kysely } from 'kysely';
import type { RegionId } from '@qw/contracts';
import type { Device, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The node's draining flag and region, read under a share lock: an undrain waits for this transaction. */
export function drainStateForShare(tx: Db, nodeId: string) {
  return tx
    .selectFrom('nodes')
    .select(['id', 'region', 'draining', 'status'])
    .where('id', '=', nodeId)
    .forShare()
    .executeTakeFirst();
}

export function drainState(db: Db, nodeId: string) {
  return db
    .selectFrom('nodes')
    .select(['id', 'region', 'draining', 'status'])
    .where('id', '=', nodeId)
    .executeTakeFirst();
}

/** A page of the devices on a node, in id order after `after`. */
export function devicesOnNode(db: Db, nodeId: string, after: string | undefined, limit: number): Promise<Device[]> {
  let query = db.selectFrom('devices').selectAll().where('node_id', '=', nodeId);
  if (after) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}

/**
 * The nodes of a region, oldest first, with the devices on each: as for placement, every device
 * counts against a node's capacity, suspended ones too (they come back to it).
 */
export async function regionNodes(db: Db, region: RegionId) {
  const rows = await db
    .selectFrom('nodes')
    .leftJoin('devices', 'devices.node_id', 'nodes.id')
    .select([
      'nodes.id',
      'nodes.region',
      'nodes.city',
      'nodes.status',
      'nodes.draining',
      'nodes.last_seen_at',
      'nodes.tags',
      'nodes.capacity',
      (eb) => eb.fn.count<string>('devices.id').as('devices'),
    ])
    .where('nodes.region', '=', region)
    .groupBy('nodes.id')
    .orderBy('nodes.created_at')
    .orderBy('nodes.id')
    .execute();
  return rows.map((row) => ({ ...row, devices: Number(row.devices) }));
}

/** Every device still on the node is held from now (those held already keep their time); answers how many. */
export async function holdDevicesOnNode(tx: Db, nodeId: string, now: Date): Promise<number> {
  const result = await tx
    .updateTable('devices')
    .set({ held_since: now })
    .where('node_id', '=', nodeId)
    .where('held_since', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The node is open again: the devices on it are no longer waiting for room. */
export async function releaseHeldDevices(tx: Db, nodeId: string): Promise<number> {
  const result = await tx
    .updateTable('devices')
    .set({ held_since: null })
    .where('node_id', '=', nodeId)
    .where('held_since', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function countHeldOnNode(db: Db, nodeId: string): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('node_id', '=', nodeId)
    .where('held_since', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drained nodes that still have devices on them, oldest first (what the retry task works through). */
export async function drainedNodesWithDevices(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('nodes')
    .select('nodes.id')
    .where('nodes.draining', '=', true)
    .where('nodes.status', '=', 'active')
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('devices').select(sql`1`.as('one')).whereRef('devices.node_id', '=', 'nodes.id')),
    )
    .orderBy('nodes.created_at')
    .execute();
  return rows.map((row) => row.id);
}
