import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { hostSampled } from '@qw/contracts';
import type { TelemetryDatabase } from '../database.ts';
import { claimEarlyHandshake, lockKeys } from './handshake-changes.ts';

type Db = Kysely<TelemetryDatabase>;
type HostSample = Static<typeof hostSampled.schema>;

/**
 * A key now belongs to a device placed on a node (a new device, a new key, a move), by the device
 * event numbered `sequence` (its outbox row in provisioning). An event older than one already
 * applied to the device changes nothing: the events come through separate consumers, and one
 * whose publish failed is sent after later ones. Returns whether it was applied.
 */
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
  sequence?: number,
): Promise<boolean> {
  if (!(await newestKeyChange(tx, input.deviceId, sequence))) return false;
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
  return true;
}

/**
 * The device is gone or its keys erased (the event numbered `sequence`): forget its key and its
 * latest status. Its number stays a day, so a late, older event does not map the key again.
 */
export async function forgetDevice(tx: Db, deviceId: string, sequence?: number): Promise<boolean> {
  if (!(await newestKeyChange(tx, deviceId, sequence))) return false;
  await tx.deleteFrom('device_keys').where('device_id', '=', deviceId).execute();
  await tx.deleteFrom('device_latest_telemetry').where('device_id', '=', deviceId).execute();
  await tx.deleteFrom('device_traffic_hours').where('device_id', '=', deviceId).execute();
  return true;
}

/**
 * Whether the device event numbered `sequence` is newer than every one applied to the device's key,
 * recording its number if so (the row's lock orders two consumers' events for one device). An
 * event without a number (not sent through provisioning's outbox relay) counts as newer.
 */
async function newestKeyChange(tx: Db, deviceId: string, sequence: number | undefined): Promise<boolean> {
  if (sequence === undefined) return true;
  const { rows } = await sql`
    insert into device_key_versions (device_id, outbox_sequence) values (${deviceId}, ${sequence})
    on conflict (device_id) do update set outbox_sequence = excluded.outbox_sequence, changed_at = now()
      where device_key_versions.outbox_sequence < excluded.outbox_sequence
    returning device_id`.execute(tx);
  return rows.length > 0;
}

/** The numbers of devices forgotten a day ago: no late event of theirs is still on its way. */
export async function pruneKeyVersions(db: Db): Promise<void> {
  await sql`delete from device_key_versions v
            where v.changed_at < now() - interval '1 day'
              and not exists (select 1 from device_keys k where k.device_id = v.device_id)`.execute(db);
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
