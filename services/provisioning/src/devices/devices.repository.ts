import type { Kysely, Updateable } from 'kysely';
import { builtOnce } from '@qw/platform/db';
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

/**
 * The columns of a device its view shows (`view`) and the connected rule reads: what a list
 * selects of each row. Its sealed keys and the reason it is off stay in Postgres (a page of 50
 * rows read them only to drop them: a fifth of the bytes each row carried).
 */
export const viewedDeviceColumns = [
  'devices.id',
  'devices.name',
  'devices.platform',
  'devices.is_active',
  'devices.user_id',
  'devices.org_id',
  'devices.created_at',
  'devices.public_key',
  'devices.ipv4',
  'devices.ipv6',
  'devices.node_id',
  'devices.region_choice',
  'devices.country',
  'devices.config_changed_at',
  'devices.held_since',
  'devices.key_created_at',
  'devices.client_keys',
  'devices.key_rotation_days',
  'devices.next_key_rotation_at',
  'devices.suspended_by',
  'devices.latest_handshake',
  'devices.blocking_mask',
  'devices.split_tunnel',
  'devices.custom_routes',
] as const;
/** The device's column named by `devices.<column>` (for the types of rows that select some). */
export type DeviceColumnOf<T> = T extends `devices.${infer Column extends keyof Device}` ? Column : never;
export type ViewedDevice = Pick<Device, DeviceColumnOf<(typeof viewedDeviceColumns)[number]>>;

/**
 * Devices as the lists show them, in one query (issue #24: one query per list): each row with
 * its node's name, region, city and last report, and when its previous key stops working (the
 * latest, if it has several). Narrowed with `where` on `devices.` columns.
 */
export function listedDevices(db: Db) {
  return db
    .selectFrom('devices')
    .leftJoin('nodes', 'nodes.id', 'devices.node_id')
    .select(viewedDeviceColumns)
    .select((eb) => [
      'nodes.name as node_name',
      'nodes.region as node_region',
      'nodes.city as node_city',
      'nodes.last_seen_at as node_last_seen_at',
      eb
        .selectFrom('retiring_keys')
        .select((r) => r.fn.max('retiring_keys.expires_at').as('until'))
        .whereRef('retiring_keys.device_id', '=', 'devices.id')
        .as('retiring_until'),
    ]);
}

/** `%`, `_` and a backslash in a search are literal characters, not patterns (for `ilike`). */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export type ListedDevice = Awaited<ReturnType<ReturnType<typeof listedDevices>['execute']>>[number];

/** The person's personal devices (org_id null) as the list shows them, newest first. */
export const listedPersonalDevices: (db: Db, userId: string) => Promise<ListedDevice[]> = builtOnce(
  (db: Db, userId: string) =>
    listedDevices(db)
      .where('devices.user_id', '=', userId)
      .where('devices.org_id', 'is', null)
      .orderBy('devices.created_at', 'desc')
      .orderBy('devices.id', 'desc'),
);

/** The columns the connected rule reads (`connectedNow`): what the Overviews select of each device. */
export const deviceStateColumns = ['devices.is_active', 'devices.public_key', 'devices.latest_handshake'] as const;
export type DeviceState = Pick<Device, DeviceColumnOf<(typeof deviceStateColumns)[number]>>;

/**
 * What the personal Overview counts: the person's own rows, those columns only, none of the
 * list's joins (the Overview read the whole list before).
 */
export const personalDeviceStates: (db: Db, userId: string) => Promise<DeviceState[]> = builtOnce(
  (db: Db, userId: string) =>
    db
      .selectFrom('devices')
      .select(deviceStateColumns)
      .where('devices.user_id', '=', userId)
      .where('devices.org_id', 'is', null),
);

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
