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
  /**
   * The node the row's latest sample came from, where known (its handshake may be a newer one a
   * node's handshake watch told, through the node the device is on now).
   */
  nodeId?: string | null;
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

/**
 * Whether a device's handshake (ms) seen through `nodeId` is news to what telemetry holds of it:
 * newer than the held one, or as new but held from another node (known). Handshakes have whole seconds:
 * a device moved to another node that connects there within the second of its last handshake on
 * the old one has the same handshake time, and is still seen through its new node for the first
 * time (provisioning then ends the peer it left on the old one). Telling it twice does no harm.
 */
export function isNewHandshake(
  handshakeMs: number,
  held: { latestHandshake: number | null; nodeId?: string | null | undefined } | undefined,
  nodeId: string,
): boolean {
  const heldMs = held?.latestHandshake ?? 0;
  return handshakeMs > heldMs || (handshakeMs === heldMs && held?.nodeId != null && held.nodeId !== nodeId);
}

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
      if (handshake !== null && isNewHandshake(handshake, last, sample.nodeId))
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

const byDevice = <T extends { deviceId: string }>(a: T, b: T) =>
  a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0;

/**
 * Samples of one or more nodes, as they came (in stream order), each taken on the subject that
 * names its node, which only that node's credentials may publish on: a peer counts only when its
 * key is placed on that very node (a broken host cannot write another node's devices' status).
 * Each counted device's latest row is overwritten, and the bytes moved since its previous sample
 * are added to its hour and to the service's hour (a counter that went down was reset, so all of
 * it is new). A fixed number of statements whatever the number of samples and peers.
 *
 * Nearly every peer of a batch is the usual case: its device has a latest row from the previous
 * sample, of the same hour, and the batch holds one sample of it. Those are applied in place by
 * one statement (`applyInPlace`) that sends the samples and reads nothing back but the few newer
 * handshakes and the peers it could not apply. The rest (a device's first sample, an hour that
 * ended, a sample older than the stored one, a device with several samples in the batch, a key not
 * placed on the sending node) go through `foldSamples`, which reads each such device's stored row
 * and follows it sample by sample. Returns how many peer samples counted.
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
  // from the same stored counters. In the same statement, room for this transaction's hashes, sort
  // and arrays of 100,000 rows (work_mem, until commit), which at the default 4 MB went to temp files.
  await sql`select set_config('work_mem', '64MB', true),
                   count(pg_advisory_xact_lock(hashtext('telemetry.peer-samples'), hashtext(id::text)))
            from unnest(${[...nodeIdOf.values()].sort()}::uuid[]) as id`.execute(tx);
  const known: Array<{ nodeId: string; sample: PeersSample }> = [];
  for (const { node, sample } of samples) {
    const nodeId = node ? nodeIdOf.get(node) : undefined;
    if (nodeId && sample.peers.length > 0) known.push({ nodeId, sample });
  }
  const inPlace = await applyInPlace(tx, known);
  const rest = known.flatMap(({ nodeId, sample }, n) => {
    const left = inPlace.left[n]!;
    return left.length > 0 ? [{ nodeId, sample: { ...sample, peers: left } }] : [];
  });
  return inPlace.counted + (rest.length > 0 ? await foldAndWrite(tx, rest) : 0);
}

/**
 * The usual case in one statement: each peer whose key appears once in the batch is joined to its
 * key (placed on the sending node) and its device's latest row; where that row is of the sample's
 * hour and not newer than the sample, the row takes the sample, its hour under way the bytes moved
 * since the row's counters, and the service's hour the same bytes. The statement answers with the
 * devices whose handshake is newer than the row's (told to provisioning, as the fold does) and the
 * peers it did not apply, which `left` hands back per sample for the fold.
 */
async function applyInPlace(
  tx: Db,
  known: ReadonlyArray<{ nodeId: string; sample: PeersSample }>,
): Promise<{ counted: number; left: Array<PeersSample['peers']> }> {
  const seen = new Map<string, number>();
  for (const { sample } of known)
    for (const peer of sample.peers) seen.set(peer.publicKey, (seen.get(peer.publicKey) ?? 0) + 1);
  const left: Array<PeersSample['peers']> = known.map(() => []);
  // The peers sent, in order; `place[i]` is the sample and peer of the i-th (1-based, as ordinality).
  const keys: string[] = [];
  const sampleOf: number[] = [];
  const rx: number[] = [];
  const txb: number[] = [];
  const handshake: Array<number | null> = [];
  const endpoint: Array<string | null> = [];
  const latency: Array<number | null> = [];
  const place: Array<[number, number]> = [[0, 0]];
  for (const [n, { sample }] of known.entries()) {
    for (const [p, peer] of sample.peers.entries()) {
      if (seen.get(peer.publicKey) !== 1) {
        left[n]!.push(peer);
        continue;
      }
      keys.push(peer.publicKey);
      sampleOf.push(n + 1);
      rx.push(peer.rxBytes);
      txb.push(peer.txBytes);
      handshake.push(peer.latestHandshake > 0 ? peer.latestHandshake * 1000 : null);
      endpoint.push(peer.maskedEndpoint);
      latency.push(peer.latencyMs ?? null);
      place.push([n, p]);
    }
  }
  if (keys.length === 0) return { counted: 0, left };
  const at = known.map(({ sample }) => Date.parse(sample.sampledAt));
  const result = await sql<{ i: number; device_id: string | null; node_id: string | null; h: number | null }>`
    with s as (
      select p.k, p.i, m.n, ${epochMs('m.t')} as t, ${epochMs('m.hr')} as hr, p.rx, p.txb,
             ${epochMs('p.h')} as h, p.e, p.lat
      from unnest(${textBytes(keys)}::text[], ${int8s(sampleOf)}::int8[], ${int8s(rx)}::int8[], ${int8s(txb)}::int8[],
                  ${int8s(handshake)}::int8[], ${textBytes(endpoint)}::text[], ${numbers(latency)}::real[])
             with ordinality as p(k, j, rx, txb, h, e, lat, i)
      join unnest(${texts(known.map(({ nodeId }) => nodeId))}::uuid[], ${int8s(at)}::int8[],
                  ${int8s(at.map(startOfHour))}::int8[]) with ordinality as m(n, t, hr, j) on m.j = p.j
    ), u as (
      update device_latest_telemetry l set
        node_id = s.n, ts = s.t, rx_bytes = s.rx, tx_bytes = s.txb, latest_handshake = s.h, endpoint = s.e, latency_ms = s.lat,
        hour_rx_bytes = o.hour_rx_bytes + case when s.rx >= o.rx_bytes then s.rx - o.rx_bytes else s.rx end,
        hour_tx_bytes = o.hour_tx_bytes + case when s.txb >= o.tx_bytes then s.txb - o.tx_bytes else s.txb end
      from s
      join device_keys k on k.public_key = s.k and k.node_id = s.n
      join device_latest_telemetry o on o.device_id = k.device_id
      where l.ctid = o.ctid and o.ts <= s.t and o.hour = s.hr
      returning s.i, l.device_id, s.n, s.hr, s.h, o.latest_handshake as before, o.node_id as before_node,
        case when s.rx >= o.rx_bytes then s.rx - o.rx_bytes else s.rx end as drx,
        case when s.txb >= o.tx_bytes then s.txb - o.tx_bytes else s.txb end as dtx
    ), hours as (
      insert into telemetry (ts, rx_bytes, tx_bytes)
      select hr, sum(drx), sum(dtx) from u group by hr having sum(drx) > 0 or sum(dtx) > 0
      order by hr
      on conflict (ts) do update set rx_bytes = telemetry.rx_bytes + excluded.rx_bytes,
                                     tx_bytes = telemetry.tx_bytes + excluded.tx_bytes
    )
    select u.i::int4 as i, u.device_id, u.n as node_id, (extract(epoch from u.h) * 1000)::float8 as h
    from u where u.h is not null
      and (u.before is null or u.h > u.before or (u.h = u.before and u.before_node is distinct from u.n))
    union all
    select s.i::int4, null, null, null from s
    where (select count(*) from u) < ${keys.length} and not exists (select 1 from u where u.i = s.i)`.execute(tx);
  let notApplied = 0;
  const newer = new Map<string, Array<{ deviceId: string; latestHandshake: string }>>();
  for (const row of result.rows) {
    if (row.device_id === null) {
      notApplied += 1;
      const [n, p] = place[row.i]!;
      left[n]!.push(known[n]!.sample.peers[p]!);
    } else {
      const devices = newer.get(row.node_id!) ?? [];
      newer.set(row.node_id!, devices);
      devices.push({ deviceId: row.device_id, latestHandshake: new Date(row.h!).toISOString() });
    }
  }
  if (newer.size > 0)
    await addManyToOutbox(
      tx,
      handshakesObserved,
      [...newer].map(([nodeId, devices]) => ({ nodeId, devices })),
    );
  return { counted: keys.length - notApplied, left };
}

/**
 * The general case, for the peers `applyInPlace` left: the nodes' samples with their peers, read
 * with each device's stored row and followed through `foldSamples`.
 */
async function foldAndWrite(tx: Db, samples: ReadonlyArray<{ nodeId: string; sample: PeersSample }>): Promise<number> {
  // Each key once, with its place in the read's array: the read answers with that place.
  const keyIndex = new Map<string, number>();
  const keys: string[] = [];
  for (const { sample } of samples)
    for (const peer of sample.peers)
      if (!keyIndex.has(peer.publicKey)) {
        keyIndex.set(peer.publicKey, keys.length + 1);
        keys.push(peer.publicKey);
      }
  if (keys.length === 0) return 0;
  // Each key's device and node, with the device's stored latest row, in one read, by device (the
  // order the rows are written in, so writers lock them in one order). Times come as epoch
  // milliseconds and counters as float8 (exact below 2^53, as Number() of a bigint is): the driver's
  // parsing of timestamps into Dates cost half of the replica's time on this read. The row's fields
  // are named as foldSamples reads a stored row, so it is used as it comes.
  const placed = await sql<
    { i: number; device_id: string; node_id: string | null; ts: number | null } & Omit<StoredLatest, 'ts'>
  >`select q.i::int4 as i, k.device_id, k.node_id, (extract(epoch from l.ts) * 1000)::float8 as ts,
            coalesce(l.rx_bytes, 0)::float8 as "rxBytes", coalesce(l.tx_bytes, 0)::float8 as "txBytes",
            (extract(epoch from l.latest_handshake) * 1000)::float8 as "latestHandshake", l.node_id as "nodeId",
            (extract(epoch from l.hour) * 1000)::float8 as hour,
            coalesce(l.hour_rx_bytes, 0)::float8 as "hourRxBytes", coalesce(l.hour_tx_bytes, 0)::float8 as "hourTxBytes"
     from unnest(${texts(keys)}::text[]) with ordinality as q(public_key, i)
     join device_keys k on k.public_key = q.public_key
     left join device_latest_telemetry l on l.device_id = k.device_id
     order by k.device_id`.execute(tx);
  const placedAt: Array<(typeof placed.rows)[number] | undefined> = new Array(keys.length + 1);
  const before = new Map<string, StoredLatest>();
  for (const row of placed.rows) {
    placedAt[row.i] = row;
    if (row.ts !== null) before.set(row.device_id, row as StoredLatest);
  }

  const resolved: ResolvedSample[] = [];
  for (const { nodeId, sample } of samples) {
    const peers: ResolvedSample['peers'] = [];
    for (const peer of sample.peers) {
      const key = placedAt[keyIndex.get(peer.publicKey)!];
      if (!key || key.node_id !== nodeId) continue;
      // Named fields rather than a spread of the peer: a tenth of the batch's time went to spreads.
      peers.push({
        deviceId: key.device_id,
        latestHandshake: peer.latestHandshake,
        rxBytes: peer.rxBytes,
        txBytes: peer.txBytes,
        maskedEndpoint: peer.maskedEndpoint,
        latencyMs: peer.latencyMs,
      });
    }
    if (peers.length > 0) resolved.push({ nodeId, sampledAt: Date.parse(sample.sampledAt), peers });
  }
  if (resolved.length === 0) return 0;

  const folded = foldSamples(before, resolved);
  // In the read's order (by device), each device once: devices with a stored row (nearly all, after
  // their first sample) are updated in place, the others inserted.
  const latestOf = new Map(folded.latest.map((row) => [row.deviceId, row]));
  const stored: LatestRow[] = [];
  const first: LatestRow[] = [];
  for (const { device_id: deviceId } of placed.rows) {
    const row = latestOf.get(deviceId);
    if (!row) continue;
    latestOf.delete(deviceId);
    (before.has(deviceId) ? stored : first).push(row);
  }
  await writeFolded(tx, folded, stored, first);
  return folded.counted;
}

/**
 * Array parameters are built here instead of by the driver, whose conversion escapes and converts
 * element by element and cost the replica more CPU than the rest of the write. Integer columns
 * (counters, times as epoch milliseconds) go in Postgres's binary array format (`int8s`: the driver
 * sends a Buffer as binary, so Postgres reads eight bytes per element instead of parsing text),
 * the others as array literals (`{1.5,NULL}`, `{"a","b"}`). Times become timestamptz in the statement
 * (`epoch + ms * 1 ms`, exact), which Postgres also reads faster than ISO text.
 */
function int8s(values: ReadonlyArray<number | null>): Buffer {
  let nulls = 0;
  for (const value of values) if (value === null) nulls += 1;
  const out = Buffer.allocUnsafe(arrayHeaderSize(values) + values.length * 4 + (values.length - nulls) * 8);
  let at = writeArrayHeader(out, values.length, nulls > 0, 20); // element type: int8
  for (const value of values) {
    if (value === null) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    // Integers below 2^53 (what a JSON number holds exactly), split into two 32-bit halves.
    const high = Math.floor(value / 4_294_967_296);
    out.writeInt32BE(8, at);
    out.writeInt32BE(high, at + 4);
    out.writeUInt32BE(value - high * 4_294_967_296, at + 8);
    at += 12;
  }
  return out;
}

/** The bytes of a one-dimensional binary array's header: 12, and 8 more for a non-empty array. */
const arrayHeaderSize = (values: ReadonlyArray<unknown>) => (values.length === 0 ? 12 : 20);

/** Writes a one-dimensional binary array's header (lower bound 1); returns where the elements start. */
function writeArrayHeader(out: Buffer, length: number, hasNulls: boolean, elementType: number): number {
  out.writeInt32BE(length === 0 ? 0 : 1, 0); // dimensions
  out.writeInt32BE(hasNulls ? 1 : 0, 4);
  out.writeInt32BE(elementType, 8);
  if (length === 0) return 12;
  out.writeInt32BE(length, 12);
  out.writeInt32BE(1, 16); // lower bound
  return 20;
}

/**
 * Strings as a binary text[] (each element its length and its UTF-8 bytes): Postgres copies them
 * instead of parsing an array literal, a tenth of the statement's time for 100,000 keys.
 */
function textBytes(values: ReadonlyArray<string | null>): Buffer {
  let size = arrayHeaderSize(values);
  let nulls = 0;
  for (const value of values) {
    if (value === null) nulls += 1;
    size += 4 + (value === null ? 0 : Buffer.byteLength(value));
  }
  const out = Buffer.allocUnsafe(size);
  let at = writeArrayHeader(out, values.length, nulls > 0, 25); // element type: text
  for (const value of values) {
    if (value === null) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    const length = out.write(value, at + 4, 'utf8');
    out.writeInt32BE(length, at);
    at += 4 + length;
  }
  return out;
}

/** Numbers as an array literal: `{1.5,NULL}`. */
function numbers(values: ReadonlyArray<number | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) out += ',';
    out += value === null || value === undefined ? 'NULL' : String(value);
  }
  return `${out}}`;
}

/** Strings as an array literal, each quoted (`{"a","b\\"c"}`), null as NULL. */
const quoted = /["\\]/;
const quotedAll = /["\\]/g;
function texts(values: ReadonlyArray<string | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) out += ',';
    if (value === null || value === undefined) out += 'NULL';
    else out += quoted.test(value) ? `"${value.replace(quotedAll, '\\$&')}"` : `"${value}"`;
  }
  return `${out}}`;
}

/** An int8 array of epoch milliseconds, as timestamptz (microseconds, exact below 2^53). */
const epochMs = (column: string) => sql.raw(`timestamptz 'epoch' + ${column} * interval '1 ms'`);

/** Latest rows as one `unnest` of arrays, one per column. */
function latestRows(rows: LatestRow[]) {
  return sql`(select d, n, ${epochMs('t')}, rx, txb, ${epochMs('h')}, e, lat, ${epochMs('hr')}, hrx, htx
              from unnest(${texts(rows.map((row) => row.deviceId))}::uuid[], ${texts(rows.map((row) => row.nodeId))}::uuid[],
                  ${int8s(rows.map((row) => row.ts))}::int8[], ${int8s(rows.map((row) => row.rxBytes))}::int8[],
                  ${int8s(rows.map((row) => row.txBytes))}::int8[],
                  ${int8s(rows.map((row) => row.latestHandshake))}::int8[],
                  ${texts(rows.map((row) => row.endpoint))}::text[], ${numbers(rows.map((row) => row.latencyMs))}::real[],
                  ${int8s(rows.map((row) => row.hour))}::int8[], ${int8s(rows.map((row) => row.hourRxBytes))}::int8[],
                  ${int8s(rows.map((row) => row.hourTxBytes))}::int8[]) as u(d, n, t, rx, txb, h, e, lat, hr, hrx, htx))`;
}

/**
 * The folded batch in five statements at most: the latest rows of devices that had one (`stored`,
 * in place) and of those that had none (`first`), each with the device's hour under way; the device
 * hours that ended, service hours, the outbox.
 */
async function writeFolded(tx: Db, folded: FoldedSamples, stored: LatestRow[], first: LatestRow[]): Promise<void> {
  // An update joined to the arrays costs Postgres less than an insert that finds its conflict; a
  // first sample's row that appeared meanwhile is overwritten.
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
      select d, ${epochMs('h')}, rx, txb
      from unnest(${texts(deviceHours.map((row) => row.deviceId))}::uuid[],
                  ${int8s(deviceHours.map((row) => row.hour))}::int8[],
                  ${int8s(deviceHours.map((row) => row.rxBytes))}::int8[],
                  ${int8s(deviceHours.map((row) => row.txBytes))}::int8[]) as u(d, h, rx, txb)
      on conflict (device_id, hour) do update set rx_bytes = device_traffic_hours.rx_bytes + excluded.rx_bytes,
                                                  tx_bytes = device_traffic_hours.tx_bytes + excluded.tx_bytes`.execute(
      tx,
    );
  const hours = [...folded.hours].sort((a, b) => a.hour - b.hour);
  if (hours.length > 0)
    await sql`
      insert into telemetry (ts, rx_bytes, tx_bytes)
      select ${epochMs('h')}, rx, txb
      from unnest(${int8s(hours.map((row) => row.hour))}::int8[], ${int8s(hours.map((row) => row.rxBytes))}::int8[],
                  ${int8s(hours.map((row) => row.txBytes))}::int8[]) as u(h, rx, txb)
      on conflict (ts) do update set rx_bytes = telemetry.rx_bytes + excluded.rx_bytes,
                                     tx_bytes = telemetry.tx_bytes + excluded.tx_bytes`.execute(tx);
  if (folded.handshakes.length > 0) await addManyToOutbox(tx, handshakesObserved, folded.handshakes);
}
