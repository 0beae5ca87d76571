import type { Kysely } from 'kysely';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The device, locked for the transaction (its changes happen one after another). */
export function lockDevice(tx: Db, deviceId: string): Promise<Device | undefined> {
  return tx.selectFrom('devices').selectAll().where('id', '=', deviceId).forUpdate().executeTakeFirst();
}

export function deviceById(db: Db, deviceId: string): Promise<Device | undefined> {
  return db.selectFrom('devices').selectAll().where('id', '=', deviceId).executeTakeFirst();
}

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

/** Until when each device's previous key (of a scheduled rotation) still works, where one does. */
export async function retiringUntil(db: Db, deviceIds: string[]): Promise<Map<string, Date>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('retiring_keys')
    .select(['device_id', 'expires_at'])
    .where('device_id', 'in', deviceIds)
    .execute();
  return new Map(rows.map((row) => [row.device_id, new Date(row.expires_at)]));
}
