import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, migrateToLatest, sql } from '@qw/platform/db';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import type { TelemetryDatabase } from '../src/database.ts';
import { foldSamples, recordPeerSamples, type ResolvedSample, type StoredLatest } from '../src/samples/peer-samples.ts';

/**
 * What a batch writes, against the rule: most peers are applied in place by one statement, the
 * rest through the fold; whichever way a peer goes, the tables must end as `foldSamples` says.
 * One batch holds every case: a device sampled in the hour of its stored row (in place), a counter
 * reset, a first sample, an hour that ended, two samples of one device, a sample older than the
 * stored row, a key sent by a node it is not placed on, an unknown key, and a device that moved.
 */
const hour = Date.UTC(2026, 10, 28, 10);
const minute = 60_000;
const key = () => randomBytes(32).toString('base64');

type Device = { id: string; key: string; node: 'n1' | 'n2'; stored?: StoredLatest & { node?: 'n1' | 'n2' } };
const stored = (
  ts: number,
  rx: number,
  tx: number,
  handshake: number | null,
  of: number,
  hourRx: number,
  hourTx: number,
) => ({
  ts,
  rxBytes: rx,
  txBytes: tx,
  latestHandshake: handshake,
  hour: of,
  hourRxBytes: hourRx,
  hourTxBytes: hourTx,
});
const devices = {
  inPlace: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: stored(hour + 20 * minute, 1000, 500, hour + minute, hour, 300, 100),
  },
  reset: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: stored(hour + 20 * minute, 5000, 5000, hour + 25 * minute, hour, 10, 20),
  },
  first: { id: randomUUID(), key: key(), node: 'n1' },
  hourEnded: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: stored(hour - 10 * minute, 100, 100, null, hour - 60 * minute, 50, 40),
  },
  twice: { id: randomUUID(), key: key(), node: 'n2', stored: stored(hour + 20 * minute, 10, 10, null, hour, 0, 0) },
  secondOnly: { id: randomUUID(), key: key(), node: 'n2', stored: stored(hour + 20 * minute, 0, 0, null, hour, 0, 0) },
  older: { id: randomUUID(), key: key(), node: 'n1', stored: stored(hour + 50 * minute, 9, 9, null, hour, 9, 9) },
  elsewhere: { id: randomUUID(), key: key(), node: 'n2' },
  moved: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: { ...stored(hour + 20 * minute, 40, 40, null, hour, 4, 4), node: 'n2' },
  },
  // Moved from node 2, and sampled through node 1 with the handshake (to the second) its row holds
  // from node 2: seen through its new node for the first time all the same (in place, and by the fold).
  movedSameSecond: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: { ...stored(hour + 20 * minute, 40, 40, hour + 19 * minute, hour, 4, 4), node: 'n2' },
  },
  movedSameSecondHourEnded: {
    id: randomUUID(),
    key: key(),
    node: 'n1',
    stored: { ...stored(hour - 10 * minute, 40, 40, hour - 11 * minute, hour - 60 * minute, 4, 4), node: 'n2' },
  },
} satisfies Record<string, Device>;
const unknownKey = key();

const peer = (device: { key: string }, rx: number, tx: number, handshakeMs = 0, latencyMs: number | null = 12.5) => ({
  publicKey: device.key,
  latestHandshake: handshakeMs / 1000,
  rxBytes: rx,
  txBytes: tx,
  maskedEndpoint: '203.0.113.x',
  latencyMs,
});
const at = (ms: number) => new Date(ms).toISOString();
// In stream order: node 1's sample, then two of node 2's.
const batch = [
  {
    node: 'node-1',
    sample: {
      sampledAt: at(hour + 30 * minute),
      peers: [
        peer(devices.inPlace, 1600, 900, hour + 29 * minute),
        peer(devices.reset, 200, 6000, hour + 25 * minute, null),
        peer(devices.first, 700, 70),
        peer(devices.hourEnded, 400, 100, hour + 2 * minute),
        peer(devices.older, 1, 1),
        peer(devices.elsewhere, 5, 5),
        { ...peer({ key: unknownKey }, 5, 5) },
        peer(devices.moved, 100, 50, hour + 30 * minute),
        peer(devices.movedSameSecond, 50, 50, hour + 19 * minute),
        peer(devices.movedSameSecondHourEnded, 50, 50, hour - 11 * minute),
      ],
    },
  },
  {
    node: 'node-2',
    sample: { sampledAt: at(hour + 30 * minute), peers: [peer(devices.twice, 30, 20, hour + 29 * minute)] },
  },
  {
    node: 'node-2',
    sample: {
      sampledAt: at(hour + 40 * minute),
      peers: [peer(devices.twice, 80, 20, hour + 39 * minute), peer(devices.secondOnly, 11, 22)],
    },
  },
];

let database: TestDatabase;
let db: Kysely<TelemetryDatabase>;
let pool: { end(): Promise<void> };
const nodeIds = { n1: randomUUID(), n2: randomUUID() };

beforeAll(async () => {
  database = await createTestDatabase('telemetry-peer-writes');
  ({ db, pool } = connectDatabase<TelemetryDatabase>(await database.provision('telemetry'), 'telemetry', 1));
  await migrateToLatest(db, 'telemetry', new URL('../migrations/', import.meta.url).pathname);
  await db
    .insertInto('nodes')
    .values([
      { id: nodeIds.n1, name: 'node-1' },
      { id: nodeIds.n2, name: 'node-2' },
    ])
    .execute();
  const all: Device[] = Object.values(devices);
  await db
    .insertInto('device_keys')
    .values(
      all.map((d) => ({ public_key: d.key, device_id: d.id, user_id: d.id, org_id: null, node_id: nodeIds[d.node] })),
    )
    .execute();
  for (const d of all) {
    if (!d.stored) continue;
    const s = d.stored;
    await db
      .insertInto('device_latest_telemetry')
      .values({
        device_id: d.id,
        node_id: nodeIds[s.node ?? d.node],
        ts: new Date(s.ts),
        rx_bytes: s.rxBytes,
        tx_bytes: s.txBytes,
        latest_handshake: s.latestHandshake === null ? null : new Date(s.latestHandshake),
        endpoint: null,
        latency_ms: null,
        rx_packets: null,
        tx_packets: null,
        hour: new Date(s.hour!),
        hour_rx_bytes: s.hourRxBytes!,
        hour_tx_bytes: s.hourTxBytes!,
      })
      .execute();
  }
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** The rule's answer: the batch resolved as placed (a key counts only on its own node), folded. */
function expected() {
  const byKey = new Map<string, Device>(Object.values(devices).map((d) => [d.key, d]));
  const before = new Map<string, StoredLatest>();
  for (const d of Object.values(devices) as Device[])
    if (d.stored) before.set(d.id, { ...d.stored, nodeId: nodeIds[d.stored.node ?? d.node] });
  const resolved: ResolvedSample[] = batch.map(({ node, sample }) => {
    const nodeId = node === 'node-1' ? nodeIds.n1 : nodeIds.n2;
    return {
      nodeId,
      sampledAt: Date.parse(sample.sampledAt),
      peers: sample.peers.flatMap((p) => {
        const d = byKey.get(p.publicKey);
        return d && nodeIds[d.node] === nodeId ? [{ ...p, deviceId: d.id }] : [];
      }),
    };
  });
  return foldSamples(before, resolved);
}

describe('a batch of peer samples, written', () => {
  it('ends every table as the fold of its samples says, whichever way each peer went', async () => {
    const counted = await db.transaction().execute((tx) => recordPeerSamples(tx, batch));
    const folded = expected();
    expect(counted).toBe(folded.counted);
    // inPlace, reset, first, hourEnded, moved, both movedSameSecond; twice twice; secondOnly. Not: older,
    // elsewhere, unknown.
    expect(counted).toBe(10);

    const latest = await sql<{
      device_id: string;
      node_id: string;
      ts: number;
      rx: number;
      tx: number;
      h: number | null;
      endpoint: string | null;
      latency_ms: number | null;
      hour: number;
      hrx: number;
      htx: number;
    }>`select device_id, node_id, (extract(epoch from ts) * 1000)::float8 as ts, rx_bytes::float8 as rx,
              tx_bytes::float8 as tx, (extract(epoch from latest_handshake) * 1000)::float8 as h, endpoint, latency_ms,
              (extract(epoch from hour) * 1000)::float8 as hour, hour_rx_bytes::float8 as hrx, hour_tx_bytes::float8 as htx
       from device_latest_telemetry`.execute(db);
    const rowOf = new Map(latest.rows.map((row) => [row.device_id, row]));
    for (const want of folded.latest)
      expect(rowOf.get(want.deviceId), want.deviceId).toEqual({
        device_id: want.deviceId,
        node_id: want.nodeId,
        ts: want.ts,
        rx: want.rxBytes,
        tx: want.txBytes,
        h: want.latestHandshake,
        endpoint: want.endpoint,
        latency_ms: want.latencyMs,
        hour: want.hour,
        hrx: want.hourRxBytes,
        htx: want.hourTxBytes,
      });
    // The older sample left its device's row alone; the misplaced key wrote nothing.
    expect(rowOf.get(devices.older.id)?.ts).toBe(devices.older.stored.ts);
    expect(rowOf.has(devices.elsewhere.id)).toBe(false);
    expect(rowOf.get(devices.moved.id)?.node_id).toBe(nodeIds.n1);
    expect(rowOf.get(devices.inPlace.id)).toMatchObject({ hrx: 300 + 600, htx: 100 + 400 });
    expect(rowOf.get(devices.reset.id)).toMatchObject({ hrx: 10 + 200, htx: 20 + 1000, latency_ms: null });

    const deviceHours = await sql<{ device_id: string; hour: number; rx: number; tx: number }>`
      select device_id, (extract(epoch from hour) * 1000)::float8 as hour, rx_bytes::float8 as rx, tx_bytes::float8 as tx
      from device_traffic_hours order by device_id`.execute(db);
    const byDevice = (a: { device_id: string }, b: { device_id: string }) => a.device_id.localeCompare(b.device_id);
    expect(deviceHours.rows).toEqual(
      folded.deviceHours
        .map((h) => ({ device_id: h.deviceId, hour: h.hour, rx: h.rxBytes, tx: h.txBytes }))
        .sort(byDevice),
    );
    expect(deviceHours.rows).toEqual(
      [
        { device_id: devices.hourEnded.id, hour: hour - 60 * minute, rx: 50, tx: 40 },
        { device_id: devices.movedSameSecondHourEnded.id, hour: hour - 60 * minute, rx: 4, tx: 4 },
      ].sort(byDevice),
    );

    const hours = await sql<{ hour: number; rx: number; tx: number }>`
      select (extract(epoch from ts) * 1000)::float8 as hour, rx_bytes::float8 as rx, tx_bytes::float8 as tx
      from telemetry order by ts`.execute(db);
    expect(hours.rows).toEqual(folded.hours.map((h) => ({ hour: h.hour, rx: h.rxBytes, tx: h.txBytes })));

    const told = await sql<{
      envelope: { data: { nodeId: string; devices: Array<{ deviceId: string; latestHandshake: string }> } };
    }>`
      select envelope from outbox where subject = 'telemetry.handshakes.observed'`.execute(db);
    const toldPairs = told.rows.flatMap((row) =>
      row.envelope.data.devices.map((d) => `${row.envelope.data.nodeId} ${d.deviceId} ${d.latestHandshake}`),
    );
    const wantPairs = folded.handshakes.flatMap((h) =>
      h.devices.map((d) => `${h.nodeId} ${d.deviceId} ${d.latestHandshake}`),
    );
    expect(toldPairs.sort()).toEqual(wantPairs.sort());
    // inPlace, moved and movedSameSecond (in place), hourEnded and movedSameSecondHourEnded (fold), twice
    // at each of its samples: not reset (no newer one, through the node it came through).
    expect(wantPairs).toHaveLength(7);
    for (const d of [devices.movedSameSecond, devices.movedSameSecondHourEnded])
      expect(toldPairs).toContain(`${nodeIds.n1} ${d.id} ${at(d.stored.latestHandshake!)}`);
  });
});
