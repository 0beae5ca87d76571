import { sql, type Kysely } from 'kysely';
import type { Envelope } from '@qw/contracts';
import { CONNECTED_WINDOW_SECONDS } from '@qw/wireguard';

type Db = Kysely<any>;
type PeerSample = { publicKey: string; latestHandshake: number; rxBytes: number; txBytes: number; maskedEndpoint: string | null };

export async function mapKey(tx: Db, input: { publicKey: string; deviceId: string; userId: string; orgId: string | null; previousPublicKey?: string | null }): Promise<void> {
  if (input.previousPublicKey) await tx.deleteFrom('device_keys').where('public_key', '=', input.previousPublicKey).execute();
  await tx.insertInto('device_keys').values({ public_key: input.publicKey, device_id: input.deviceId, user_id: input.userId, org_id: input.orgId })
    .onConflict((oc) => oc.column('public_key').doUpdateSet({ device_id: input.deviceId, user_id: input.userId, org_id: input.orgId })).execute();
}

/** The device is gone or its keys erased: forget its key and its latest status. */
export async function forgetDevice(tx: Db, deviceId: string): Promise<void> {
  await tx.deleteFrom('device_keys').where('device_id', '=', deviceId).execute();
  await tx.deleteFrom('device_latest_telemetry').where('device_id', '=', deviceId).execute();
}

/**
 * One node's peers at one moment: each known device's latest row is overwritten, and the bytes
 * moved since its previous sample are added to the hour's total (a counter that went down was
 * reset, so all of it is new). Unknown keys are ignored.
 */
export async function recordPeerSamples(tx: Db, event: Envelope<{ nodeId: string; sampledAt: string; peers: PeerSample[] }>): Promise<void> {
  const { nodeId, sampledAt, peers } = event.data;
  if (peers.length === 0) return;
  const keys = await tx.selectFrom('device_keys').select(['public_key', 'device_id']).where('public_key', 'in', peers.map((p) => p.publicKey)).execute();
  const deviceOf = new Map(keys.map((k) => [k.public_key as string, k.device_id as string]));
  const known = peers.filter((p) => deviceOf.has(p.publicKey));
  if (known.length === 0) return;
  const previous = await tx.selectFrom('device_latest_telemetry').select(['device_id', 'rx_bytes', 'tx_bytes', 'ts'])
    .where('device_id', 'in', known.map((p) => deviceOf.get(p.publicKey)!)).execute();
  const before = new Map(previous.map((row) => [row.device_id as string, row]));
  const at = new Date(sampledAt);
  let rxDelta = 0;
  let txDelta = 0;
  for (const peer of known) {
    const deviceId = deviceOf.get(peer.publicKey)!;
    const last = before.get(deviceId);
    if (last && new Date(last.ts) > at) continue;
    const lastRx = Number(last?.rx_bytes ?? 0);
    const lastTx = Number(last?.tx_bytes ?? 0);
    rxDelta += peer.rxBytes >= lastRx ? peer.rxBytes - lastRx : peer.rxBytes;
    txDelta += peer.txBytes >= lastTx ? peer.txBytes - lastTx : peer.txBytes;
    const handshake = peer.latestHandshake > 0 ? new Date(peer.latestHandshake * 1000) : null;
    await tx.insertInto('device_latest_telemetry').values({
      device_id: deviceId, node_id: nodeId, ts: at, rx_bytes: peer.rxBytes, tx_bytes: peer.txBytes, latest_handshake: handshake, endpoint: peer.maskedEndpoint,
      rx_packets: null, tx_packets: null, latency_ms: null,
    }).onConflict((oc) => oc.column('device_id').doUpdateSet({
      node_id: nodeId, ts: at, rx_bytes: peer.rxBytes, tx_bytes: peer.txBytes, latest_handshake: handshake, endpoint: peer.maskedEndpoint,
    })).execute();
  }
  if (rxDelta > 0 || txDelta > 0) {
    await sql`insert into telemetry (ts, rx_bytes, tx_bytes) values (date_trunc('hour', ${at}::timestamptz), ${rxDelta}, ${txDelta})
              on conflict (ts) do update set rx_bytes = telemetry.rx_bytes + excluded.rx_bytes, tx_bytes = telemetry.tx_bytes + excluded.tx_bytes`.execute(tx);
  }
}

export async function recordHostSample(tx: Db, data: { nodeId: string; sampledAt: string; cpu: number; memUsed: number; memTotal: number; diskUsed: number; diskTotal: number; load1: number; load5: number; load15: number }): Promise<void> {
  await tx.insertInto('vps_metrics').values({
    host_id: data.nodeId, ts: new Date(data.sampledAt), cpu: data.cpu, mem_used: data.memUsed, mem_total: data.memTotal, disk_used: data.diskUsed,
    disk_total: data.diskTotal, load1: data.load1, load5: data.load5, load15: data.load15,
  }).onConflict((oc) => oc.columns(['host_id', 'ts']).doNothing()).execute();
}

/** Connected: the latest handshake is younger than 180 s, judged now (a silent node does not stay "connected"). */
export async function latestFor(db: Db, deviceIds: string[], now = new Date()) {
  if (deviceIds.length === 0) return [];
  const rows = await db.selectFrom('device_latest_telemetry').selectAll().where('device_id', 'in', deviceIds).execute();
  return rows.map((row) => {
    const handshake = row.latest_handshake ? new Date(row.latest_handshake) : null;
    return {
      device_id: row.device_id as string,
      ts: new Date(row.ts).toISOString(),
      rx_bytes: Number(row.rx_bytes),
      tx_bytes: Number(row.tx_bytes),
      latest_handshake: handshake ? handshake.toISOString() : null,
      endpoint: row.endpoint as string | null,
      is_connected: handshake !== null && now.getTime() - handshake.getTime() < CONNECTED_WINDOW_SECONDS * 1000,
    };
  });
}

/** Host metrics older than a day tell the console nothing. */
export async function pruneHostMetrics(db: Db): Promise<void> {
  await sql`delete from vps_metrics where ts < now() - interval '1 day'`.execute(db);
}
