import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { hostSampled } from '@qw/contracts';
import type { TelemetryDatabase } from '../database.ts';
import { claimEarlyHandshake, lockKeys } from './handshake-changes.ts';

type Db = Kysely<TelemetryDatabase>;
type HostSample = Static<typeof hostSampled.schema>;

/** A key now belongs to a device placed on a node (a new device, or a new key for one). */
export async function mapKey(
  tx: Db,
  input: {
    publicKey: string;
    deviceId: string;
    nodeId: string;
    userId: string;
    orgId: string | null;
    previousPublicKey?: string | null;
  },
): Promise<void> {
  if (input.previousPublicKey)
    await tx.deleteFrom('device_keys').where('public_key', '=', input.previousPublicKey).execute();
  // Before the key is mapped: a handshake for it being recorded now commits first, or waits (lockKeys).
  await lockKeys(tx, [input.publicKey]);
  const row = { device_id: input.deviceId, node_id: input.nodeId, user_id: input.userId, org_id: input.orgId };
  await tx
    .insertInto('device_keys')
    .values({ public_key: input.publicKey, ...row })
    .onConflict((oc) => oc.column('public_key').doUpdateSet(row))
    .execute();
  await claimEarlyHandshake(tx, input);
}

/** The device is gone or its keys erased: forget its key and its latest status. */
export async function forgetDevice(tx: Db, deviceId: string): Promise<void> {
  await tx.deleteFrom('device_keys').where('device_id', '=', deviceId).execute();
  await tx.deleteFrom('device_latest_telemetry').where('device_id', '=', deviceId).execute();
  await tx.deleteFrom('device_traffic_hours').where('device_id', '=', deviceId).execute();
}

/** Provisioning registered a node: the name its samples carry, and the id stored with them. */
export async function rememberNode(tx: Db, node: { nodeId: string; name: string }): Promise<void> {
  await tx.deleteFrom('nodes').where('name', '=', node.name).where('id', '<>', node.nodeId).execute();
  await tx
    .insertInto('nodes')
    .values({ id: node.nodeId, name: node.name })
    .onConflict((oc) => oc.column('id').doUpdateSet({ name: node.name }))
    .execute();
}

async function nodeIdOf(tx: Db, name: string | undefined): Promise<string | undefined> {
  if (!name) return undefined;
  const row = await tx.selectFrom('nodes').select('id').where('name', '=', name).executeTakeFirst();
  return row?.id;
}

/** A node's host metrics, kept under the node's id; an unregistered name is ignored. */
export async function recordHostSample(tx: Db, node: string | undefined, data: HostSample): Promise<void> {
  const nodeId = await nodeIdOf(tx, node);
  if (!nodeId) return;
  await tx
    .insertInto('vps_metrics')
    .values({
      host_id: nodeId,
      ts: new Date(data.sampledAt),
      cpu: data.cpu,
      mem_used: data.memUsed,
      mem_total: data.memTotal,
      disk_used: data.diskUsed,
      disk_total: data.diskTotal,
      load1: data.load1,
      load5: data.load5,
      load15: data.load15,
      net_rx_bytes: data.netRxBytes ?? null,
      net_tx_bytes: data.netTxBytes ?? null,
      peers: data.peers ?? null,
    })
    .onConflict((oc) => oc.columns(['host_id', 'ts']).doNothing())
    .execute();
}

/**
 * The latest traffic of each device. Whether it is connected is provisioning's to say
 * (`isDeviceConnected` over its device rows, which the handshakes telemetry reports keep current).
 */
export async function latestFor(db: Db, deviceIds: string[]) {
  if (deviceIds.length === 0) return [];
  // One query for the whole list (issue #24), the ids as one array parameter: the latest row of
  // each device with its bytes over the hours that began within the last 24 hours (so 23 to 24
  // hours of traffic): the ended hours' rows and the hour under way, kept in the latest row.
  const rows = await sql<{
    device_id: string;
    ts: Date;
    rx_bytes: string;
    tx_bytes: string;
    latest_handshake: Date | null;
    endpoint: string | null;
    rx_24h: string | null;
    tx_24h: string | null;
  }>`
    select l.device_id, l.ts, l.rx_bytes, l.tx_bytes, l.latest_handshake, l.endpoint,
           coalesce(d.rx, 0) + case when l.hour > now() - interval '24 hours' then l.hour_rx_bytes else 0 end as rx_24h,
           coalesce(d.tx, 0) + case when l.hour > now() - interval '24 hours' then l.hour_tx_bytes else 0 end as tx_24h
      from device_latest_telemetry l
      left join (
        select device_id, sum(rx_bytes) as rx, sum(tx_bytes) as tx
          from device_traffic_hours
         where device_id = any(${deviceIds}::uuid[]) and hour > now() - interval '24 hours'
         group by device_id
      ) d on d.device_id = l.device_id
     where l.device_id = any(${deviceIds}::uuid[])`.execute(db);
  return rows.rows.map((row) => {
    const handshake = row.latest_handshake ? new Date(row.latest_handshake) : null;
    return {
      device_id: row.device_id,
      ts: new Date(row.ts).toISOString(),
      rx_bytes: Number(row.rx_bytes),
      tx_bytes: Number(row.tx_bytes),
      rx_bytes_24h: Number(row.rx_24h ?? 0),
      tx_bytes_24h: Number(row.tx_24h ?? 0),
      latest_handshake: handshake ? handshake.toISOString() : null,
      endpoint: row.endpoint,
    };
  });
}

/**
 * A device's hours older than a day are no longer shown anywhere, so they are not kept: the ended
 * hours' rows, and the hour under way of a device that has not reported since (its latest row keeps
 * its status, not those bytes).
 */
export async function pruneDeviceTraffic(db: Db): Promise<void> {
  await sql`delete from device_traffic_hours where hour <= now() - interval '24 hours'`.execute(db);
  await sql`update device_latest_telemetry set hour = null, hour_rx_bytes = 0, hour_tx_bytes = 0
             where hour <= now() - interval '24 hours'`.execute(db);
}

/** Host metrics older than a day tell the console nothing. */
export async function pruneHostMetrics(db: Db): Promise<void> {
  await sql`delete from vps_metrics where ts < now() - interval '1 day'`.execute(db);
}
