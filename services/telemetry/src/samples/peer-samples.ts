import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { peersSampled } from '@qw/contracts';
import { handshakesObserved } from '@qw/contracts';
import { addManyToOutbox } from '@qw/platform';
import type { TelemetryDatabase } from '../database.ts';

type Db = Kysely<TelemetryDatabase>;
type PeersSample = Static<typeof peersSampled.schema>;

/**
 * Bytes a peer moved since its previous sample. WireGuard's counters only grow while the
 * interface lives; a counter below the previous one was reset (the node restarted, the peer was
 * removed and added again), so everything it shows is new.
 */
export function bytesSince(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

/**
 * What telemetry holds of a device before a batch: its latest sample's time, counters and
 * handshake, and the hour under way with the bytes moved in it so far (none: no hour started).
 */
export type StoredLatest = {
  ts: number;
  rxBytes: number;
  txBytes: number;
  latestHandshake: number | null;
  hour?: number | null;
  hourRxBytes?: number;
  hourTxBytes?: number;
};

/** One node's sample with its peers already resolved to the devices placed on that node. */
export type ResolvedSample = {
  nodeId: string;
  sampledAt: number;
  peers: Array<{
    deviceId: string;
    latestHandshake: number;
    rxBytes: number;
    txBytes: number;
    maskedEndpoint: string | null;
    latencyMs?: number | null | undefined;
  }>;
};

/** A device's latest row as the batch leaves it (times in ms). */
export type LatestRow = {
  deviceId: string;
  nodeId: string;
  ts: number;
  rxBytes: number;
  txBytes: number;
  latestHandshake: number | null;
  endpoint: string | null;
  latencyMs: number | null;
  /** The hour of `ts` and the bytes moved in it so far (kept in the row until a later hour comes). */
  hour: number;
  hourRxBytes: number;
  hourTxBytes: number;
};

export type FoldedSamples = {
  /** One row per device the batch counted: its newest sample. */
  latest: LatestRow[];
  /**
   * Bytes per device of the hours that ended in this batch (a sample of a later hour came; only
   * where something moved): added to `device_traffic_hours`. The hour under way stays in `latest`.
   */
  deviceHours: Array<{ deviceId: string; hour: number; rxBytes: number; txBytes: number }>;
  /** Bytes per hour for the whole service (only where something moved). */
  hours: Array<{ hour: number; rxBytes: number; txBytes: number }>;
  /** Per sample with newer handshakes: what provisioning is told (`telemetry.handshakes.observed`). */
  handshakes: Array<{ nodeId: string; devices: Array<{ deviceId: string; latestHandshake: string }> }>;
  /** Peer samples counted (a sample older than the device's latest is not). */
  counted: number;
};

function startOfHour(ms: number): number {
  return ms - (((ms % 3_600_000) + 3_600_000) % 3_600_000);
}

/**
 * The effect of several samples, in the order given (stream order), on what was stored: each
 * device's counters are followed from one sample to the next in memory, so the batch is the
 * same as taking the samples one at a time, and only each device's newest row is written. A
 * sample older than the device's latest is skipped; a newer handshake than the latest known is
 * reported once per sample. A device's bytes add to its hour under way, carried in its latest row;
 * a sample of a later hour ends that hour (into `deviceHours`) and starts its own.
 */
export function foldSamples(
  stored: ReadonlyMap<string, StoredLatest>,
  samples: readonly ResolvedSample[],
): FoldedSamples {
  const current = new Map<string, LatestRow>();
  const deviceHours = new Map<string, { deviceId: string; hour: number; rxBytes: number; txBytes: number }>();
  const hours = new Map<number, { hour: number; rxBytes: number; txBytes: number }>();
  const handshakes: FoldedSamples['handshakes'] = [];
  let counted = 0;
  for (const sample of samples) {
    const at = sample.sampledAt;
    const hour = startOfHour(at);
    const newer: Array<{ deviceId: string; latestHandshake: string }> = [];
    for (const peer of sample.peers) {
      const last = current.get(peer.deviceId) ?? stored.get(peer.deviceId);
      if (last && last.ts > at) continue;
      counted += 1;
      const rxMoved = bytesSince(last?.rxBytes ?? 0, peer.rxBytes);
      const txMoved = bytesSince(last?.txBytes ?? 0, peer.txBytes);
      let hourRx = last?.hourRxBytes ?? 0;
      let hourTx = last?.hourTxBytes ?? 0;
      const lastHour = last?.hour ?? null;
      if (lastHour !== hour) {
        // A later hour (samples only move forward): the one under way has ended.
        if (lastHour !== null && (hourRx > 0 || hourTx > 0)) {
          const key = `${peer.deviceId}/${lastHour}`;
          const ended = deviceHours.get(key);
          if (ended) {
            ended.rxBytes += hourRx;
            ended.txBytes += hourTx;
          } else deviceHours.set(key, { deviceId: peer.deviceId, hour: lastHour, rxBytes: hourRx, txBytes: hourTx });
        }
        hourRx = 0;
        hourTx = 0;
      }
      hourRx += rxMoved;
      hourTx += txMoved;
      if (rxMoved > 0 || txMoved > 0) {
        const total = hours.get(hour);
        if (total) {
          total.rxBytes += rxMoved;
          total.txBytes += txMoved;
        } else hours.set(hour, { hour, rxBytes: rxMoved, txBytes: txMoved });
      }
      const handshake = peer.latestHandshake > 0 ? peer.latestHandshake * 1000 : null;
      if (handshake !== null && handshake > (last?.latestHandshake ?? 0))
        newer.push({ deviceId: peer.deviceId, latestHandshake: new Date(handshake).toISOString() });
      current.set(peer.deviceId, {
        deviceId: peer.deviceId,
        nodeId: sample.nodeId,
        ts: at,
        rxBytes: peer.rxBytes,
        txBytes: peer.txBytes,
        latestHandshake: handshake,
        endpoint: peer.maskedEndpoint,
        // Measured by the node at this sample, or null: an old figure would be shown as today's.
        latencyMs: peer.latencyMs ?? null,
        hour,
        hourRxBytes: hourRx,
        hourTxBytes: hourTx,
      });
    }
    // Provisioning keeps each device's latest handshake for its own "connected now" filters; a
    // handshake is renewed about every two minutes, so this is one small event per sample at most.
    if (newer.length > 0) handshakes.push({ nodeId: sample.nodeId, devices: newer });
  }
  return {
    latest: [...current.values()],
    deviceHours: [...deviceHours.values()],
    hours: [...hours.values()],
    handshakes,
    counted,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const byDevice = <T extends { deviceId: string }>(a: T, b: T) =>
  a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0;

/**
 * Samples of one or more nodes, as they came (in stream order), each taken on the subject that
 * names its node, which only that node's credentials may publish on: a peer counts only when its
 * key is placed on that very node (a broken host cannot write another node's devices' status).
 * Each counted device's latest row is overwritten, and the bytes moved since its previous sample
 * are added to its hour and to the service's hour (a counter that went down was reset, so all of
 * it is new). A fixed number of statements whatever the number of samples and peers: the nodes
 * are read, then the keys with the devices' stored rows, and each table is written with one
 * statement of arrays. Returns how many peer samples counted.
 */
export async function recordPeerSamples(
  tx: Db,
  samples: ReadonlyArray<{ node: string | undefined; sample: PeersSample }>,
): Promise<number> {
  const names = [...new Set(samples.flatMap(({ node, sample }) => (node && sample.peers.length > 0 ? [node] : [])))];
  if (names.length === 0) return 0;
  const nodes = await tx.selectFrom('nodes').select(['id', 'name']).where('name', 'in', names).execute();
  const nodeIdOf = new Map(nodes.map((node) => [node.name, node.id]));
  // One replica at a time per node (a lock per node, taken in one order, held until commit), before
  // anything is read: two replicas given one node's consecutive samples would otherwise both count
  // from the same stored counters.
  await sql`select count(pg_advisory_xact_lock(hashtext('telemetry.peer-samples'), hashtext(id::text)))
            from unnest(${[...nodeIdOf.values()].sort()}::uuid[]) as id`.execute(tx);
  const keys = new Set<string>();
  for (const { node, sample } of samples)
    if (node && nodeIdOf.has(node)) for (const peer of sample.peers) keys.add(peer.publicKey);
  if (keys.size === 0) return 0;
  // Each key's device and node, with the device's stored latest row, in one read. Times come as
  // epoch milliseconds and counters as float8 (exact below 2^53, as Number() of a bigint is): the
  // driver's parsing of timestamps into Dates cost half of the replica's time on this read.
  const placed = await sql<{
    public_key: string;
    device_id: string;
    node_id: string | null;
    ts: number | null;
    rx_bytes: number | null;
    tx_bytes: number | null;
    latest_handshake: number | null;
    hour: number | null;
    hour_rx_bytes: number | null;
    hour_tx_bytes: number | null;
  }>`select k.public_key, k.device_id, k.node_id, (extract(epoch from l.ts) * 1000)::float8 as ts,
            l.rx_bytes::float8 as rx_bytes, l.tx_bytes::float8 as tx_bytes,
            (extract(epoch from l.latest_handshake) * 1000)::float8 as latest_handshake,
            (extract(epoch from l.hour) * 1000)::float8 as hour,
            l.hour_rx_bytes::float8 as hour_rx_bytes, l.hour_tx_bytes::float8 as hour_tx_bytes
     from device_keys k left join device_latest_telemetry l on l.device_id = k.device_id
     where k.public_key = any(${[...keys]}::text[])`.execute(tx);
  const keyOf = new Map(placed.rows.map((row) => [row.public_key, row]));

  const resolved: ResolvedSample[] = [];
  for (const { node, sample } of samples) {
    const nodeId = node ? nodeIdOf.get(node) : undefined;
    if (!nodeId) continue;
    const peers: ResolvedSample['peers'] = [];
    for (const peer of sample.peers) {
      const key = keyOf.get(peer.publicKey);
      if (!key || key.node_id !== nodeId) continue;
      peers.push({ ...peer, deviceId: key.device_id });
    }
    if (peers.length > 0) resolved.push({ nodeId, sampledAt: Date.parse(sample.sampledAt), peers });
  }
  if (resolved.length === 0) return 0;

  const before = new Map<string, StoredLatest>();
  for (const row of placed.rows)
    if (row.ts !== null)
      before.set(row.device_id, {
        ts: row.ts,
        rxBytes: row.rx_bytes ?? 0,
        txBytes: row.tx_bytes ?? 0,
        latestHandshake: row.latest_handshake,
        hour: row.hour,
        hourRxBytes: row.hour_rx_bytes ?? 0,
        hourTxBytes: row.hour_tx_bytes ?? 0,
      });
  const folded = foldSamples(before, resolved);
  await writeFolded(tx, folded, new Set(before.keys()));
  return folded.counted;
}

/** Latest rows as one `unnest` of arrays, one per column. */
function latestRows(rows: LatestRow[]) {
  return sql`unnest(${rows.map((row) => row.deviceId)}::uuid[], ${rows.map((row) => row.nodeId)}::uuid[],
                  ${rows.map((row) => iso(row.ts))}::timestamptz[], ${rows.map((row) => row.rxBytes)}::bigint[],
                  ${rows.map((row) => row.txBytes)}::bigint[],
                  ${rows.map((row) => (row.latestHandshake === null ? null : iso(row.latestHandshake)))}::timestamptz[],
                  ${rows.map((row) => row.endpoint)}::text[], ${rows.map((row) => row.latencyMs)}::real[],
                  ${rows.map((row) => iso(row.hour))}::timestamptz[], ${rows.map((row) => row.hourRxBytes)}::bigint[],
                  ${rows.map((row) => row.hourTxBytes)}::bigint[])`;
}

/**
 * The folded batch in five statements at most: latest rows (with each device's hour under way;
 * `had`: the devices that had a stored row), the device hours that ended, service hours, the outbox.
 */
async function writeFolded(tx: Db, folded: FoldedSamples, had: ReadonlySet<string>): Promise<void> {
  // Devices with a stored row (nearly all, after their first sample) are updated in place: an
  // update joined to the arrays costs Postgres less than an insert that finds its conflict. The
  // others (a first sample) are inserted, and one that appeared meanwhile is overwritten.
  const latest = [...folded.latest].sort(byDevice);
  const stored = latest.filter((row) => had.has(row.deviceId));
  const first = latest.filter((row) => !had.has(row.deviceId));
  if (stored.length > 0)
    await sql`
      update device_latest_telemetry l set
        node_id = s.n, ts = s.t, rx_bytes = s.rx, tx_bytes = s.txb, latest_handshake = s.h, endpoint = s.e,
        latency_ms = s.lat, hour = s.hr, hour_rx_bytes = s.hrx, hour_tx_bytes = s.htx
      from ${latestRows(stored)} as s(d, n, t, rx, txb, h, e, lat, hr, hrx, htx)
      where l.device_id = s.d`.execute(tx);
  if (first.length > 0)
    await sql`
      insert into device_latest_telemetry
        (device_id, node_id, ts, rx_bytes, tx_bytes, latest_handshake, endpoint, latency_ms, rx_packets, tx_packets,
         hour, hour_rx_bytes, hour_tx_bytes)
      select d, n, t, rx, txb, h, e, lat, null, null, hr, hrx, htx
      from ${latestRows(first)} as s(d, n, t, rx, txb, h, e, lat, hr, hrx, htx)
      on conflict (device_id) do update set
        node_id = excluded.node_id, ts = excluded.ts, rx_bytes = excluded.rx_bytes, tx_bytes = excluded.tx_bytes,
        latest_handshake = excluded.latest_handshake, endpoint = excluded.endpoint, latency_ms = excluded.latency_ms,
        hour = excluded.hour, hour_rx_bytes = excluded.hour_rx_bytes, hour_tx_bytes = excluded.hour_tx_bytes`.execute(
      tx,
    );
  const deviceHours = [...folded.deviceHours].sort((a, b) => byDevice(a, b) || a.hour - b.hour);
  if (deviceHours.length > 0)
    await sql`
      insert into device_traffic_hours (device_id, hour, rx_bytes, tx_bytes)
      select * from unnest(${deviceHours.map((row) => row.deviceId)}::uuid[],
                           ${deviceHours.map((row) => iso(row.hour))}::timestamptz[],
                           ${deviceHours.map((row) => row.rxBytes)}::bigint[], ${deviceHours.map((row) => row.txBytes)}::bigint[])
      on conflict (device_id, hour) do update set rx_bytes = device_traffic_hours.rx_bytes + excluded.rx_bytes,
                                                  tx_bytes = device_traffic_hours.tx_bytes + excluded.tx_bytes`.execute(
      tx,
    );
  const hours = [...folded.hours].sort((a, b) => a.hour - b.hour);
  if (hours.length > 0)
    await sql`
      insert into telemetry (ts, rx_bytes, tx_bytes)
      select * from unnest(${hours.map((row) => iso(row.hour))}::timestamptz[],
                           ${hours.map((row) => row.rxBytes)}::bigint[], ${hours.map((row) => row.txBytes)}::bigint[])
      on conflict (ts) do update set rx_bytes = telemetry.rx_bytes + excluded.rx_bytes,
                                     tx_bytes = telemetry.tx_bytes + excluded.tx_bytes`.execute(tx);
  if (folded.handshakes.length > 0) await addManyToOutbox(tx, handshakesObserved, folded.handshakes);
}
