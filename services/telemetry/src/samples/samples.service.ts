import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { hostSampled, peersSampled } from '@qw/contracts';
import { handshakesObserved } from '@qw/contracts';
import { addToOutbox } from '@qw/platform';
import type { TelemetryDatabase } from '../database.ts';

type Db = Kysely<TelemetryDatabase>;
type PeersSample = Static<typeof peersSampled.schema>;
type HostSample = Static<typeof hostSampled.schema>;

/**
 * Bytes a peer moved since its previous sample. WireGuard's counters only grow while the
 * interface lives; a counter below the previous one was reset (the node restarted, the peer was
 * removed and added again), so everything it shows is new.
 */
export function bytesSince(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

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
  const row = { device_id: input.deviceId, node_id: input.nodeId, user_id: input.userId, org_id: input.orgId };
  await tx
    .insertInto('device_keys')
    .values({ public_key: input.publicKey, ...row })
    .onConflict((oc) => oc.column('public_key').doUpdateSet(row))
    .execute();
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

/**
 * One node's peers at one moment. `node` is the name in the sample's subject, which only that
 * node's credentials may publish on; a peer counts only when its key is placed on that very node
 * (a broken host cannot write another node's devices' status). Each counted device's latest row
 * is overwritten, and the bytes moved since its previous sample are added to the hour's total (a
 * counter that went down was reset, so all of it is new). Returns how many peers counted.
 */
export async function recordPeerSamples(tx: Db, node: string | undefined, sample: PeersSample): Promise<number> {
  const nodeId = await nodeIdOf(tx, node);
  if (!nodeId || sample.peers.length === 0) return 0;
  const keys = await tx
    .selectFrom('device_keys')
    .select(['public_key', 'device_id'])
    .where('node_id', '=', nodeId)
    .where(
      'public_key',
      'in',
      sample.peers.map((p) => p.publicKey),
    )
    .execute();
  const deviceOf = new Map(keys.map((k) => [k.public_key, k.device_id]));
  const known = sample.peers.filter((p) => deviceOf.has(p.publicKey));
  if (known.length === 0) return 0;
  const previous = await tx
    .selectFrom('device_latest_telemetry')
    .select(['device_id', 'rx_bytes', 'tx_bytes', 'ts', 'latest_handshake'])
    .where(
      'device_id',
      'in',
      known.map((p) => deviceOf.get(p.publicKey)!),
    )
    .execute();
  const before = new Map(previous.map((row) => [row.device_id, row]));
  const at = new Date(sample.sampledAt);
  let rxDelta = 0;
  let txDelta = 0;
  let counted = 0;
  const hourly: Array<{ device_id: string; hour: Date; rx_bytes: number; tx_bytes: number }> = [];
  const newer: Array<{ deviceId: string; latestHandshake: string }> = [];
  for (const peer of known) {
    const deviceId = deviceOf.get(peer.publicKey)!;
    const last = before.get(deviceId);
    if (last && new Date(last.ts) > at) continue;
    counted += 1;
    const rxMoved = bytesSince(Number(last?.rx_bytes ?? 0), peer.rxBytes);
    const txMoved = bytesSince(Number(last?.tx_bytes ?? 0), peer.txBytes);
    rxDelta += rxMoved;
    txDelta += txMoved;
    if (rxMoved > 0 || txMoved > 0)
      hourly.push({ device_id: deviceId, hour: startOfHour(at), rx_bytes: rxMoved, tx_bytes: txMoved });
    const latest = {
      node_id: nodeId,
      ts: at,
      rx_bytes: peer.rxBytes,
      tx_bytes: peer.txBytes,
      latest_handshake: peer.latestHandshake > 0 ? new Date(peer.latestHandshake * 1000) : null,
      endpoint: peer.maskedEndpoint,
      // Measured by the node at this sample, or null: an old figure would be shown as today's.
      latency_ms: peer.latencyMs ?? null,
    };
    await tx
      .insertInto('device_latest_telemetry')
      .values({ device_id: deviceId, ...latest, rx_packets: null, tx_packets: null })
      .onConflict((oc) => oc.column('device_id').doUpdateSet(latest))
      .execute();
    const seenBefore = last?.latest_handshake ? new Date(last.latest_handshake).getTime() : 0;
    if (latest.latest_handshake && latest.latest_handshake.getTime() > seenBefore)
      newer.push({ deviceId, latestHandshake: latest.latest_handshake.toISOString() });
  }
  // Provisioning keeps each device's latest handshake for its own "connected now" filters; a
  // handshake is renewed about every two minutes, so this is one small event per sample at most.
  if (newer.length > 0) await addToOutbox(tx, handshakesObserved, { nodeId, devices: newer });
  if (hourly.length > 0) await addDeviceHours(tx, hourly);
  if (rxDelta > 0 || txDelta > 0) {
    await sql`insert into telemetry (ts, rx_bytes, tx_bytes)
              values (date_trunc('hour', ${at}::timestamptz), ${rxDelta}, ${txDelta})
              on conflict (ts) do update set rx_bytes = telemetry.rx_bytes + excluded.rx_bytes,
                                             tx_bytes = telemetry.tx_bytes + excluded.tx_bytes`.execute(tx);
  }
  return counted;
}

function startOfHour(at: Date): Date {
  const hour = new Date(at);
  hour.setUTCMinutes(0, 0, 0);
  return hour;
}

/** Adds each device's bytes to its hour (one statement for the whole sample). */
async function addDeviceHours(
  tx: Db,
  rows: Array<{ device_id: string; hour: Date; rx_bytes: number; tx_bytes: number }>,
): Promise<void> {
  await tx
    .insertInto('device_traffic_hours')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['device_id', 'hour']).doUpdateSet({
        rx_bytes: sql`device_traffic_hours.rx_bytes + excluded.rx_bytes`,
        tx_bytes: sql`device_traffic_hours.tx_bytes + excluded.tx_bytes`,
      }),
    )
    .execute();
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
  const [rows, day] = await Promise.all([
    db.selectFrom('device_latest_telemetry').selectAll().where('device_id', 'in', deviceIds).execute(),
    lastDayFor(db, deviceIds),
  ]);
  return rows.map((row) => {
    const handshake = row.latest_handshake ? new Date(row.latest_handshake) : null;
    const moved = day.get(row.device_id);
    return {
      device_id: row.device_id,
      ts: new Date(row.ts).toISOString(),
      rx_bytes: Number(row.rx_bytes),
      tx_bytes: Number(row.tx_bytes),
      rx_bytes_24h: moved?.rx ?? 0,
      tx_bytes_24h: moved?.tx ?? 0,
      latest_handshake: handshake ? handshake.toISOString() : null,
      endpoint: row.endpoint,
    };
  });
}

/**
 * Each device's bytes over the hours that began within the last 24 hours (so 23 to 24 hours of
 * traffic), in one query for the whole list.
 */
async function lastDayFor(db: Db, deviceIds: string[]): Promise<Map<string, { rx: number; tx: number }>> {
  const rows = await db
    .selectFrom('device_traffic_hours')
    .select((eb) => ['device_id', eb.fn.sum<string>('rx_bytes').as('rx'), eb.fn.sum<string>('tx_bytes').as('tx')])
    .where('device_id', 'in', deviceIds)
    .where('hour', '>', sql<Date>`now() - interval '24 hours'`)
    .groupBy('device_id')
    .execute();
  return new Map(rows.map((row) => [row.device_id, { rx: Number(row.rx), tx: Number(row.tx) }]));
}

/** A device's hours older than a day are no longer shown anywhere, so they are not kept. */
export async function pruneDeviceTraffic(db: Db): Promise<void> {
  await sql`delete from device_traffic_hours where hour <= now() - interval '24 hours'`.execute(db);
}

/** Host metrics older than a day tell the console nothing. */
export async function pruneHostMetrics(db: Db): Promise<void> {
  await sql`delete from vps_metrics where ts < now() - interval '1 day'`.execute(db);
}
