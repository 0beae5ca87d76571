import type { Kysely, Updateable } from 'kysely';
import type { Device, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The device, locked for the transaction (its changes happen one after another). */
export function lockDevice(tx: Db, deviceId: string): Promise<Device | undefined> {
  return tx.selectFrom('devices').selectAll().where('id', '=', deviceId).forUpdate().executeTakeFirst();
}

/** Changes the device's columns; answers the row as it is now. */
export function updateDevice(
  tx: Db,
  deviceId: string,
  changes: Updateable<ProvisioningDatabase['devices']>,
): Promise<Device> {
  return tx.updateTable('devices').set(changes).where('id', '=', deviceId).returningAll().executeTakeFirstOrThrow();
}

export function deviceById(db: Db, deviceId: string): Promise<Device | undefined> {
  return db.selectFrom('devices').selectAll().where('id', '=', deviceId).executeTakeFirst();
}

/** The person's personal devices (org_id null), newest first. */
export function personalDevices(db: Db, userId: string): Promise<Device[]> {
  return db
    .selectFrom('devices')
    .selectAll()
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countPersonalDevices(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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

/** A person's active personal devices off, for `reason`; answers those it switched off. */
export function suspendPersonalDevices(tx: Db, userId: string, reason: string): Promise<Device[]> {
  return tx
    .updateTable('devices')
    .set({ is_active: false, suspended_reason: reason })
    .where('is_active', '=', true)
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .returningAll()
    .execute();
}

/**
 * The configuration of the device on this node was downloaded: a move's "download again" is
 * done. A move to another node since then keeps its own mark.
 */
export async function configDownloaded(db: Db, deviceId: string, nodeId: string): Promise<void> {
  await db
    .updateTable('devices')
    .set({ config_changed_at: null })
    .where('id', '=', deviceId)
    .where('node_id', '=', nodeId)
    .execute();
}
