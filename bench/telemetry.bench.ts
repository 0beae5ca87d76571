/**
 * Telemetry ingest: simulated nodes publish peer samples as node agents do (`peersSampled` on
 * `node.<name>.peers.sampled`, each node with its own NATS user, the envelope's id as the message
 * id), and one telemetry replica (the product's entry point, its own process, real Postgres, real
 * NATS with the product's permissions) turns them into each device's latest status and the hourly
 * totals. The figure is the peer samples per second one replica takes in; the baseline is the same
 * messages through a bare JetStream stream (publish → consume → parse → ack, no database) in the
 * same run. Afterwards every device's latest row, every device's hours and the service's hours are
 * compared with what the samples say (`checkIngest`): a wrong figure fails the bench loudly.
 *
 * The fleet's 10 s periods are published back to back (a backlog of several periods at once), so
 * the figure is what a replica can take, not the 10,000/s that 100 nodes × 1,000 peers every 10 s
 * need. Telemetry's copy of the nodes and keys (provisioning's events) is written straight into its
 * tables before the run: it is not what is measured. BENCH_CPU_PROF=<dir> writes the replica's CPU
 * profile there.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import pg from 'pg';
import { fillSubject, latestTelemetryRpc, peersSampled, provisioningEvents } from '@qw/contracts';
import { type BusConnection, createEnvelope, RpcClient } from '@qw/platform';
import {
  eventually,
  freePort,
  spawnTsProcess,
  startServiceAlone,
  testCallerKeys,
  type ServiceAlone,
  type SpawnedProcess,
} from '@qw/testkit';
import { type Bench, type BenchFigure, type BenchSize, median } from './lib/figures.ts';

export const samplePeriodSeconds = 10;

export type FleetSize = {
  nodes: number;
  peersPerNode: number;
  /** Periods published before measuring (not counted): the replica compiles and warms its pools. */
  warmUpPeriods: number;
  /** Counted rounds, each a backlog of `periodsPerRound` periods of every node. */
  rounds: number;
  periodsPerRound: number;
  /**
   * How the replica is stopped while it holds a batch, before the last periods: SIGKILL (a crash:
   * its messages come again after the durable's ack wait, 30 s) or SIGTERM (a deploy).
   */
  restart: 'SIGKILL' | 'SIGTERM';
};

export const fleetSizes: Record<BenchSize, FleetSize> = {
  full: { nodes: 100, peersPerNode: 1000, warmUpPeriods: 1, rounds: 3, periodsPerRound: 5, restart: 'SIGKILL' },
  tiny: { nodes: 4, peersPerNode: 100, warmUpPeriods: 1, rounds: 2, periodsPerRound: 2, restart: 'SIGTERM' },
};

export type SimulatedPeer = { publicKey: string; deviceId: string; rxStep: number; txStep: number; offset: number };
export type SimulatedNode = { name: string; nodeId: string; peers: SimulatedPeer[] };

/**
 * The fleet: every node's peers, each a device with its own key and a steady rate (bytes moved
 * per period, different for every peer). `startMs` is when period 0 was sampled.
 */
export type Fleet = { nodes: SimulatedNode[]; startMs: number; periods: number };

export function simulatedFleet(size: FleetSize, startMs: number, prefix = 'bench-tl'): Fleet {
  const periods = size.warmUpPeriods + size.rounds * size.periodsPerRound;
  const nodes = Array.from({ length: size.nodes }, (_, n) => ({
    name: `${prefix}-${n}`,
    nodeId: randomUUID(),
    peers: Array.from({ length: size.peersPerNode }, (_, j) => ({
      publicKey: randomBytes(32).toString('base64'),
      deviceId: randomUUID(),
      rxStep: 1 + ((n * 7919 + j * 104_729) % 5_000_000),
      txStep: 1 + ((n * 15_485_863 + j * 32_452_843) % 900_000),
      offset: (n * 31 + j * 17) % 120,
    })),
  }));
  return { nodes, startMs, periods };
}

export function sampledAtMs(fleet: Fleet, period: number): number {
  return fleet.startMs + period * samplePeriodSeconds * 1000;
}

/** Node 0 restarts before this period: its counters start again from zero (all they show is new). */
function resetPeriod(fleet: Fleet): number {
  return Math.max(1, Math.floor(fleet.periods / 2));
}

/** A peer's counters at a period: `step` per period since the interface (re)started. */
function counters(fleet: Fleet, node: number, peer: SimulatedPeer, period: number): { rx: number; tx: number } {
  const since = node === 0 && period >= resetPeriod(fleet) ? period - resetPeriod(fleet) + 1 : period + 1;
  return { rx: since * peer.rxStep, tx: since * peer.txStep };
}

/** Every tenth peer never connected; the others renew their handshake every two minutes. */
function handshakeAt(peer: SimulatedPeer, index: number, atMs: number): number {
  if (index % 10 === 9) return 0;
  const seconds = Math.floor(atMs / 1000);
  return Math.floor((seconds - peer.offset) / 120) * 120 + peer.offset;
}

function latencyAt(index: number, period: number): number | null {
  return index % 20 === 0 ? 1.5 + (period % 5) : null;
}

/** What node `node`'s agent publishes at `period`, as `reportPeers` builds it. */
export function sampleOf(fleet: Fleet, node: number, period: number) {
  const at = sampledAtMs(fleet, period);
  return {
    sampledAt: new Date(at).toISOString(),
    peers: fleet.nodes[node]!.peers.map((peer, j) => {
      const { rx, tx } = counters(fleet, node, peer, period);
      const handshake = handshakeAt(peer, j, at);
      return {
        publicKey: peer.publicKey,
        latestHandshake: handshake,
        rxBytes: rx,
        txBytes: tx,
        maskedEndpoint: handshake > 0 ? `198.51.${node % 256}.x` : null,
        latencyMs: latencyAt(j, period),
      };
    }),
  };
}

function hourOf(ms: number): number {
  return ms - (ms % 3_600_000);
}

export type ExpectedLatest = {
  ts: number;
  rx: number;
  tx: number;
  handshake: number | null;
  endpoint: string | null;
  latency: number | null;
};

/** What telemetry must hold after every period of the fleet was taken in. */
export type ExpectedIngest = {
  latest: Map<string, ExpectedLatest>;
  /** device id → hour (ms) → bytes moved. */
  deviceHours: Map<string, Map<number, { rx: number; tx: number }>>;
  /** hour (ms) → the whole service's bytes. */
  hours: Map<number, { rx: number; tx: number }>;
};

/**
 * The expected state, from the rules and not from telemetry's code: a first sample counts all of
 * its counters, each later one what grew since the one before, and a counter that went down (node
 * 0's restart) counts all it shows; each period's bytes go to the hour it was sampled in.
 */
export function expectedIngest(fleet: Fleet, periods = fleet.periods): ExpectedIngest {
  const latest = new Map<string, ExpectedLatest>();
  const deviceHours = new Map<string, Map<number, { rx: number; tx: number }>>();
  const hours = new Map<number, { rx: number; tx: number }>();
  const last = periods - 1;
  fleet.nodes.forEach((node, n) => {
    node.peers.forEach((peer, j) => {
      const byHour = new Map<number, { rx: number; tx: number }>();
      let previous = { rx: 0, tx: 0 };
      for (let period = 0; period < periods; period++) {
        const now = counters(fleet, n, peer, period);
        const rx = now.rx >= previous.rx ? now.rx - previous.rx : now.rx;
        const tx = now.tx >= previous.tx ? now.tx - previous.tx : now.tx;
        previous = now;
        const hour = hourOf(sampledAtMs(fleet, period));
        for (const into of [byHour, hours]) {
          const sum = into.get(hour) ?? { rx: 0, tx: 0 };
          into.set(hour, { rx: sum.rx + rx, tx: sum.tx + tx });
        }
      }
      deviceHours.set(peer.deviceId, byHour);
      const at = sampledAtMs(fleet, last);
      const handshake = handshakeAt(peer, j, at);
      latest.set(peer.deviceId, {
        ts: at,
        ...counters(fleet, n, peer, last),
        handshake: handshake > 0 ? handshake * 1000 : null,
        endpoint: handshake > 0 ? `198.51.${n % 256}.x` : null,
        latency: latencyAt(j, last),
      });
    });
  });
  return { latest, deviceHours, hours };
}

/** Telemetry's tables as read after the run (pg's types: bigints as strings, timestamps as Dates). */
export type ActualIngest = {
  latest: Array<{
    device_id: string;
    ts: Date;
    rx_bytes: string | number;
    tx_bytes: string | number;
    latest_handshake: Date | null;
    endpoint: string | null;
    latency_ms: number | null;
  }>;
  deviceHours: Array<{ device_id: string; hour: Date; rx_bytes: string | number; tx_bytes: string | number }>;
  hours: Array<{ ts: Date; rx_bytes: string | number; tx_bytes: string | number }>;
};

/**
 * Every difference between what telemetry holds and what the samples say, readable (the first
 * `limit` of each kind, then how many more). Empty when all is right.
 */
export function checkIngest(expected: ExpectedIngest, actual: ActualIngest, limit = 5): string[] {
  const problems: string[] = [];
  const counts = new Map<string, number>();
  const report = (kind: string, text: string) => {
    const seen = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, seen);
    if (seen <= limit) problems.push(text);
  };
  const time = (value: Date | null) => (value === null ? null : new Date(value).getTime());

  const latestSeen = new Set<string>();
  for (const row of actual.latest) {
    const want = expected.latest.get(row.device_id);
    if (!want) {
      report('latest-extra', `latest status of a device no sample named: ${row.device_id}`);
      continue;
    }
    latestSeen.add(row.device_id);
    const got = {
      ts: time(row.ts),
      rx: Number(row.rx_bytes),
      tx: Number(row.tx_bytes),
      handshake: time(row.latest_handshake),
      endpoint: row.endpoint,
      latency: row.latency_ms === null ? null : Number(row.latency_ms),
    };
    for (const key of Object.keys(want) as Array<keyof ExpectedLatest>) {
      if (got[key] !== want[key])
        report(
          `latest-${key}`,
          `latest ${key} of device ${row.device_id}: ${String(got[key])}, expected ${String(want[key])}`,
        );
    }
  }
  for (const deviceId of expected.latest.keys())
    if (!latestSeen.has(deviceId)) report('latest-missing', `no latest status for device ${deviceId}`);

  const hoursSeen = new Map<string, Set<number>>();
  for (const row of actual.deviceHours) {
    const hour = time(row.hour)!;
    const want = expected.deviceHours.get(row.device_id)?.get(hour);
    const got = { rx: Number(row.rx_bytes), tx: Number(row.tx_bytes) };
    if (!want) report('device-hour-extra', `device ${row.device_id} has bytes in an hour no sample fell in`);
    else if (want.rx !== got.rx || want.tx !== got.tx)
      report(
        'device-hour',
        `device ${row.device_id} at ${new Date(hour).toISOString()}: ${got.rx}/${got.tx} bytes, expected ${want.rx}/${want.tx}`,
      );
    const seen = hoursSeen.get(row.device_id) ?? new Set<number>();
    seen.add(hour);
    hoursSeen.set(row.device_id, seen);
  }
  for (const [deviceId, byHour] of expected.deviceHours)
    for (const [hour, bytes] of byHour)
      if ((bytes.rx > 0 || bytes.tx > 0) && !hoursSeen.get(deviceId)?.has(hour))
        report('device-hour-missing', `device ${deviceId} has no bytes at ${new Date(hour).toISOString()}`);

  const totalsSeen = new Set<number>();
  for (const row of actual.hours) {
    const hour = time(row.ts)!;
    totalsSeen.add(hour);
    const want = expected.hours.get(hour);
    const got = { rx: Number(row.rx_bytes), tx: Number(row.tx_bytes) };
    if (!want) report('hour-extra', `hourly total at ${new Date(hour).toISOString()} where no sample fell`);
    else if (want.rx !== got.rx || want.tx !== got.tx)
      report(
        'hour',
        `hourly total at ${new Date(hour).toISOString()}: ${got.rx}/${got.tx} bytes, expected ${want.rx}/${want.tx}`,
      );
  }
  for (const hour of expected.hours.keys())
    if (!totalsSeen.has(hour)) report('hour-missing', `no hourly total at ${new Date(hour).toISOString()}`);

  for (const [kind, seen] of counts) if (seen > limit) problems.push(`… and ${seen - limit} more of ${kind}`);
  return problems;
}

/** Reads telemetry's tables as `checkIngest` compares them. */
export async function readIngest(client: pg.Client): Promise<ActualIngest> {
  // One after the other: one client runs one query at a time.
  const latest = await client.query(
    'select device_id, ts, rx_bytes, tx_bytes, latest_handshake, endpoint, latency_ms from telemetry.device_latest_telemetry',
  );
  // A device's ended hours, and the hour under way kept in its latest row.
  const deviceHours = await client.query(
    `select device_id, hour, sum(rx_bytes) as rx_bytes, sum(tx_bytes) as tx_bytes from (
       select device_id, hour, rx_bytes, tx_bytes from telemetry.device_traffic_hours
       union all
       select device_id, hour, hour_rx_bytes, hour_tx_bytes from telemetry.device_latest_telemetry
        where hour is not null and (hour_rx_bytes > 0 or hour_tx_bytes > 0)) h
     group by device_id, hour`,
  );
  const hours = await client.query('select ts, rx_bytes, tx_bytes from telemetry.telemetry');
  return { latest: latest.rows, deviceHours: deviceHours.rows, hours: hours.rows };
}

/** Telemetry's copy of provisioning's nodes and keys, written as its consumers would write them. */
export async function seedProjection(client: pg.Client, fleet: Fleet): Promise<void> {
  await client.query('insert into telemetry.nodes (id, name) select * from unnest($1::uuid[], $2::text[])', [
    fleet.nodes.map((node) => node.nodeId),
    fleet.nodes.map((node) => node.name),
  ]);
  const keys = fleet.nodes.flatMap((node) => node.peers.map((peer) => ({ ...peer, nodeId: node.nodeId })));
  await client.query(
    `insert into telemetry.device_keys (public_key, device_id, user_id, org_id, node_id)
     select k, d, d, null, n from unnest($1::text[], $2::uuid[], $3::uuid[]) as t(k, d, n)`,
    [keys.map((key) => key.publicKey), keys.map((key) => key.deviceId), keys.map((key) => key.nodeId)],
  );
  await client.query(
    `insert into telemetry.device_activity (device_id, is_active, changed_at)
     select d, true, now() from unnest($1::uuid[]) as d`,
    [keys.map((key) => key.deviceId)],
  );
}

type Message = { subject: string; id: string; body: Uint8Array };

/** Each node's messages for periods [from, to), built (and checked against the contract) before timing. */
function messagesOf(fleet: Fleet, from: number, to: number, subjectOf: (node: string) => string): Message[][] {
  const encoder = new TextEncoder();
  return fleet.nodes.map((node, n) => {
    const messages: Message[] = [];
    for (let period = from; period < to; period++) {
      const envelope = createEnvelope(peersSampled, sampleOf(fleet, n, period));
      messages.push({ subject: subjectOf(node.name), id: envelope.id, body: encoder.encode(JSON.stringify(envelope)) });
    }
    return messages;
  });
}

/**
 * A request to NATS again when it timed out: on the shared machine at a load of 25–30 a request
 * (a publish's acknowledgement, a consumer's info) sometimes waits longer than the client's 5 s,
 * which failed whole runs. Only for requests that may be repeated: reads, and publishes with a
 * message id (the stream keeps one copy).
 */
async function again<T>(request: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (attempt >= attempts || (error as Error).name !== 'TimeoutError') throw error;
    }
  }
}

/** Every node publishes its messages in order, all nodes at once; answers when the server stored all. */
async function publishAll(connections: BusConnection[], messages: Message[][]): Promise<void> {
  await Promise.all(
    messages.map(async (ofNode, n) => {
      const bus = connections[n % connections.length]!;
      for (const message of ofNode)
        await again(() => bus.js.publish(message.subject, message.body, { msgID: message.id }));
    }),
  );
}

/** Waits until a durable consumer has nothing pending or unacknowledged past `lastSeq`. */
async function drained(bus: BusConnection, stream: string, durable: string, lastSeq: number): Promise<void> {
  for (;;) {
    const info = await again(() => bus.jsm.consumers.info(stream, durable));
    if (info.ack_floor.stream_seq >= lastSeq && info.num_pending === 0 && info.num_ack_pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function lastSequence(bus: BusConnection, stream: string): Promise<number> {
  return (await again(() => bus.jsm.streams.info(stream))).state.last_seq;
}

/** The baseline: the same messages through a bare stream, consumed, parsed and acknowledged here. */
async function bareRound(admin: BusConnection, stream: string, subject: string, messages: Message[][]) {
  const durable = `bare-${randomBytes(4).toString('hex')}`;
  await admin.jsm.consumers.add(stream, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.New,
    max_ack_pending: 2000,
  });
  const total = messages.reduce((sum, ofNode) => sum + ofNode.length, 0);
  const consumer = await admin.js.consumers.get(stream, durable);
  const iterator = await consumer.consume({ max_messages: 400 });
  const started = performance.now();
  let samples = 0;
  const consumed = (async () => {
    let seen = 0;
    for await (const msg of iterator) {
      samples += (msg.json() as { data: { peers: unknown[] } }).data.peers.length;
      msg.ack();
      if (++seen === total) break;
    }
  })();
  await publishAll(
    [admin],
    messages.map((ofNode) => ofNode.map((message) => ({ ...message, subject }))),
  );
  await consumed;
  const seconds = (performance.now() - started) / 1000;
  await iterator.close().catch(() => undefined);
  await admin.jsm.consumers.delete(stream, durable).catch(() => undefined);
  return { samples, seconds };
}

export type TelemetryBenchResult = {
  size: FleetSize;
  ingest: number[];
  bare: number[];
  problems: string[];
  rpcChecked: number;
  /** Messages the replica held unacknowledged when it was killed. */
  killedHolding: number;
};

/** The whole run: figures plus the correctness check's problems (the Bench throws on any). */
export async function runTelemetryBench(size: FleetSize): Promise<TelemetryBenchResult> {
  const alone: ServiceAlone = await startServiceAlone('bench-telemetry', { provisioning: provisioningEvents });
  let replica: SpawnedProcess | undefined;
  const client = new pg.Client({ connectionString: alone.database.adminUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const databaseUrl = await alone.database.provision('telemetry');
    const profileDir = process.env.BENCH_CPU_PROF;
    /** One telemetry replica as it runs in production (its own process), ready when this returns. */
    const startReplica = async () => {
      const port = await freePort();
      const child = await spawnTsProcess(
        'telemetry',
        'services/telemetry/src/main.ts',
        {
          ...alone.bus.env('telemetry'),
          BUS_NAMESPACE: '',
          LOG_LEVEL: 'warn',
          NODE_ENV: 'test',
          HTTP_HOST: '127.0.0.1',
          HTTP_PORT: String(port),
          DATABASE_URL: databaseUrl,
          CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
        },
        profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
      );
      replica = child;
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        120_000,
        250,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${child.output().slice(-2000)}`);
      });
    };
    await startReplica();

    const periods = size.warmUpPeriods + (size.rounds + 1) * size.periodsPerRound;
    // Every period sampled in the past, the last one a minute ago: all of it within the last 24 hours.
    const fleet = simulatedFleet(size, Date.now() - (periods * samplePeriodSeconds + 60) * 1000);
    await seedProjection(client, fleet);
    const admin = alone.admin;
    const stream = admin.ns.stream('node');
    const durable = admin.ns.durable('telemetry.peers-sampled');
    await eventually(
      async () => (await admin.jsm.consumers.info(stream, durable).catch(() => undefined)) !== undefined,
    );

    // One connection per simulated node, as that node's user (NATS lets it publish on its own subjects only).
    const connections: BusConnection[] = [];
    for (const node of fleet.nodes)
      connections.push(await alone.connect((await alone.bus.addNode(node.name)).NATS_USER));
    const subjectOf = (node: string) => admin.ns.subject(fillSubject(peersSampled.subject, { node }));

    const bareStream = admin.ns.stream('benchbare');
    const bareSubject = admin.ns.subject('benchbare.peers');
    await admin.jsm.streams.add({ name: bareStream, subjects: [bareSubject] });

    const perPeriod = size.nodes * size.peersPerNode;
    const ingest: number[] = [];
    const bare: number[] = [];
    let period = 0;
    const round = async (count: number) => {
      const messages = messagesOf(fleet, period, period + count, subjectOf);
      period += count;
      const before = await lastSequence(admin, stream);
      const started = performance.now();
      await publishAll(connections, messages);
      await drained(admin, stream, durable, before + size.nodes * count);
      const seconds = (performance.now() - started) / 1000;
      const baseline = await bareRound(admin, bareStream, bareSubject, messages);
      return { ingest: (perPeriod * count) / seconds, bare: baseline.samples / baseline.seconds };
    };
    await round(size.warmUpPeriods);
    for (let r = 0; r < size.rounds; r++) {
      const measured = await round(size.periodsPerRound);
      ingest.push(measured.ingest);
      bare.push(measured.bare);
    }

    // Not timed: the replica is stopped (SIGKILL, or SIGTERM at the tiny size) while it holds
    // messages it has not acknowledged, and another one started. Nothing may be lost or counted
    // twice: the check below covers it.
    const before = await lastSequence(admin, stream);
    const published = publishAll(connections, messagesOf(fleet, period, period + size.periodsPerRound, subjectOf));
    period += size.periodsPerRound;
    const target = before + size.nodes * size.periodsPerRound;
    const holding = await eventually(
      async () => {
        const info = await admin.jsm.consumers.info(stream, durable);
        // Normally it holds some; a replica that took them all before a look is killed all the same.
        return info.num_ack_pending > 0 || info.ack_floor.stream_seq >= target ? info.num_ack_pending : false;
      },
      60_000,
      1,
    );
    await replica!.stop(size.restart);
    await published;
    await startReplica();
    await drained(admin, stream, durable, target);

    const expected = expectedIngest(fleet, period);
    const problems = checkIngest(expected, await readIngest(client));
    // And as provisioning reads it (the Devices list's "last 24 h"): a slice of the devices over the RPC.
    const asProvisioning = new RpcClient(await alone.connect('provisioning'));
    // Ten per node: 1,000 rows at the full size, an answer well inside NATS's 1 MB message limit.
    const slice = fleet.nodes.flatMap((node) => node.peers.slice(0, 10).map((peer) => peer.deviceId));
    const answered = (await asProvisioning.request(latestTelemetryRpc, { device_ids: slice })).devices;
    for (const row of answered) {
      const want = expected.latest.get(row.device_id)!;
      const day = [...expected.deviceHours.get(row.device_id)!.values()].reduce(
        (sum, bytes) => ({ rx: sum.rx + bytes.rx, tx: sum.tx + bytes.tx }),
        { rx: 0, tx: 0 },
      );
      if (row.rx_bytes !== want.rx || row.rx_bytes_24h !== day.rx || row.tx_bytes_24h !== day.tx)
        problems.push(
          `telemetry.rpc.latest for ${row.device_id}: ${row.rx_bytes} (24 h ${row.rx_bytes_24h}/${row.tx_bytes_24h}), expected ${want.rx} (24 h ${day.rx}/${day.tx})`,
        );
    }
    if (answered.length !== slice.length)
      problems.push(`telemetry.rpc.latest answered ${answered.length} of ${slice.length} devices`);
    return { size, ingest, bare, problems, rpcChecked: answered.length, killedHolding: holding };
  } finally {
    await (replica as SpawnedProcess | undefined)?.stop();
    await client.end().catch(() => undefined);
    await alone.stop();
  }
}

export const telemetryBench: Bench = {
  name: 'telemetry',
  title: 'Telemetry ingest: simulated nodes’ peer samples through one telemetry replica (real Postgres, real NATS)',
  async run(benchSize: BenchSize): Promise<BenchFigure[]> {
    const size = fleetSizes[benchSize];
    const result = await runTelemetryBench(size);
    if (result.problems.length > 0)
      throw new Error(`telemetry holds wrong figures after the run:\n  ${result.problems.join('\n  ')}`);
    const fleet = `${size.nodes} nodes × ${size.peersPerNode.toLocaleString('en-US')} peers`;
    return [
      {
        figure: `Peer samples taken in by one telemetry replica (${fleet}, ${size.periodsPerRound} periods of 10 s published at once)`,
        value: Math.round(median(result.ingest)),
        unit: 'samples/s',
        baseline: {
          label: 'bare JetStream publish → consume → parse → ack of the same messages',
          value: Math.round(median(result.bare)),
        },
        target: { on: 'value', comparison: '>=', limit: 50_000 },
        note: `median of ${size.rounds} rounds after ${size.warmUpPeriods} warm-up period(s); from the first publish until the replica acknowledged the last message (ack after commit). Then the replica was stopped (${size.restart}) holding ${result.killedHolding} unacknowledged message(s) of ${size.periodsPerRound} more periods and started again; afterwards latest status, each device's hours and the service's hours checked for all ${(size.nodes * size.peersPerNode).toLocaleString('en-US')} devices (${result.rpcChecked} also through telemetry.rpc.latest).`,
      },
    ];
  },
};
