/**
 * Outbox → JetStream → inbox, measured end to end on this machine with the real relay and the
 * real idempotent consumer (a batch consumer, in its own process):
 *   1. commit-to-effect latency at a paced rate (after a warm-up at that rate), split into
 *      commit → stored in JetStream (the relay) and stored → effect (the consumer);
 *   2. sustained events/s with producers committing as fast as they can, one event per commit
 *      and ten per commit;
 *   3. how fast a backlog drains (events committed while the relay was stopped).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { addManyToOutbox, addToOutbox, defaultOutboxRetentionMs, type RunningService } from '@qw/platform';
import { connectDatabase } from '@qw/platform/db';
import {
  createTestDatabase,
  deleteNamespace,
  eventually,
  launchService,
  sharedNatsUrl,
  spawnTsProcess,
  testNamespace,
} from '@qw/testkit';
import { probeService, thingCreated } from '../libs/platform/test/fixtures/probe-services.ts';
import type { Bench } from './lib/figures.ts';

const nowMs = () => performance.timeOrigin + performance.now();

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

type Probe = RunningService<any>;
type Sink = { db: RunningService<any>['db'] };

async function commitThing(probe: Probe, thingId: string): Promise<number> {
  await probe.db.transaction().execute(async (tx) => {
    await tx.insertInto('things').values({ id: thingId, name: 'bench' }).execute();
    await addToOutbox(tx, thingCreated, { thingId, name: 'bench', seats: 1 });
  });
  return nowMs();
}

/** One transaction that changes several things at once (one statement), each with its event (one statement). */
async function commitThings(probe: Probe, count: number): Promise<void> {
  const thingIds = Array.from({ length: count }, () => randomUUID());
  await probe.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('things')
      .values(thingIds.map((id) => ({ id, name: 'bench' })))
      .execute();
    await addManyToOutbox(
      tx,
      thingCreated,
      thingIds.map((thingId) => ({ thingId, name: 'bench', seats: 1 })),
    );
  });
}

async function effectCount(sink: Sink): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from effects`.execute(sink.db);
  return result.rows[0]!.n;
}

/** Every 10 ms a tick commits rate/100 events in parallel; returns each thing's commit time. */
async function paced(
  probe: Probe,
  rate: number,
  seconds: number,
): Promise<{ committedAt: Map<string, number>; elapsed: number }> {
  const committedAt = new Map<string, number>();
  const perTick = Math.max(1, Math.round(rate / 100));
  const started = nowMs();
  const inflight: Promise<void>[] = [];
  for (let tick = 0; tick < seconds * 100; tick++) {
    const wait = started + tick * 10 - nowMs();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (let i = 0; i < perTick; i++) {
      const id = randomUUID();
      inflight.push(commitThing(probe, id).then((at) => void committedAt.set(id, at)));
    }
  }
  await Promise.all(inflight);
  return { committedAt, elapsed: (nowMs() - started) / 1000 };
}

/** When JetStream stored each thing's event (the server's clock, the same machine's). */
async function storedTimes(probe: Probe): Promise<Map<string, number>> {
  const stored = new Map<string, number>();
  const reader = await probe.bus.js.consumers.get(probe.bus.ns.stream('probe'));
  for (let msg = await reader.next({ expires: 2000 }); msg; msg = await reader.next({ expires: 2000 })) {
    stored.set((msg.json() as { data: { thingId: string } }).data.thingId, Number(msg.info.timestampNanos) / 1e6);
    if (msg.info.pending === 0) break;
  }
  return stored;
}

/** Producers commit back to back for `seconds`; returns events produced and the end-to-end rate. */
async function sustained(probe: Probe, sink: Sink, producers: number, seconds: number, eventsPerCommit: number) {
  const before = await effectCount(sink);
  let produced = 0;
  const started = nowMs();
  const stopAt = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (nowMs() < stopAt) {
        if (eventsPerCommit === 1) await commitThing(probe, randomUUID());
        else await commitThings(probe, eventsPerCommit);
        produced += eventsPerCommit;
      }
    }),
  );
  const producedElapsed = (nowMs() - started) / 1000;
  await eventually(async () => (await effectCount(sink)) >= before + produced, 120_000, 50);
  const drainedElapsed = (nowMs() - started) / 1000;
  return {
    eventsPerCommit,
    events: produced,
    producedPerSecond: Math.round(produced / producedElapsed),
    endToEndEventsPerSecond: Math.round(produced / drainedElapsed),
  };
}

/** Commits `events` while the relay is stopped (100 per commit), then times relay start → last effect. */
async function backlogDrain(probe: Probe, sink: Sink, events: number) {
  const before = await effectCount(sink);
  await probe.relay.stop();
  for (let done = 0; done < events; done += 100) await commitThings(probe, Math.min(100, events - done));
  const started = nowMs();
  await probe.relay.start();
  await eventually(async () => (await effectCount(sink)) >= before + events, 120_000, 20);
  const seconds = (nowMs() - started) / 1000;
  return { events, seconds, eventsPerSecond: Math.round(events / seconds) };
}

export async function runBusPipelineBench(
  options: { rate?: number; seconds?: number; producers?: number; backlog?: number; warmUpSeconds?: number } = {},
) {
  const rate = options.rate ?? 1000;
  const seconds = options.seconds ?? 10;
  const producers = options.producers ?? 16;
  const backlog = options.backlog ?? 50_000;
  const database = await createTestDatabase('bench');
  const namespace = testNamespace();
  // The product's default retention of published rows (OUTBOX_RETENTION_MS=0 for the delete at publish).
  const outboxRetentionMs = Number(process.env.OUTBOX_RETENTION_MS ?? defaultOutboxRetentionMs);
  const probe = await launchService(probeService, { database, namespace, outboxRetentionMs });
  // The consumer runs in its own process, as a consuming service does in production, and
  // records each batch of events with one statement (batchConsumer).
  const sinkUrl = await database.provision('sink-batch');
  const sinkProcess = await spawnTsProcess(
    'sink',
    'bench/sink.process.ts',
    { DATABASE_URL: sinkUrl, NATS_URL: sharedNatsUrl, BUS_NAMESPACE: namespace, SINK_BATCH: '1' },
    { migrations: 'libs/platform/test/fixtures/sink-migrations' },
  );
  await eventually(() => sinkProcess.output().includes('ready'), 30_000, 50).catch((error: Error) => {
    throw new Error(`${error.message}: the sink process did not start: ${sinkProcess.output().slice(-1500)}`);
  });
  const sinkDatabase = connectDatabase<any>(sinkUrl, 'sink_batch', 2);
  const sink: Sink = { db: sinkDatabase.db };
  try {
    // Warm-up at the measured rate (connections, plans, JIT, heap sizes), not counted.
    const warmUp = await paced(probe, rate, options.warmUpSeconds ?? 2);
    await eventually(async () => (await effectCount(sink)) >= warmUp.committedAt.size, 30_000, 50);

    // 1. Latency at a paced rate.
    const { committedAt, elapsed } = await paced(probe, rate, seconds);
    const expected = warmUp.committedAt.size + committedAt.size;
    await eventually(async () => (await effectCount(sink)) >= expected, 60_000, 50);
    const rows = await sql<{ thing_id: string; received_ms: number }>`
      select thing_id, extract(epoch from received_at) * 1000 as received_ms from effects`.execute(sink.db);
    const stored = await storedTimes(probe);
    const total: number[] = [];
    const relay: number[] = [];
    const consumer: number[] = [];
    for (const row of rows.rows) {
      const committed = committedAt.get(row.thing_id);
      if (committed === undefined) continue;
      const effect = Number(row.received_ms);
      total.push(effect - committed);
      const storedAt = stored.get(row.thing_id);
      if (storedAt !== undefined) {
        relay.push(storedAt - committed);
        consumer.push(effect - storedAt);
      }
    }

    // 2. Sustained throughput: producers commit back to back, one event per transaction, then
    // ten per transaction (the pipeline's own capacity, apart from Postgres' commit rate).
    const single = await sustained(probe, sink, producers, seconds, 1);
    const batched = await sustained(probe, sink, producers, seconds, 10);

    // 3. A backlog, as after an outage of NATS or of the relay.
    const drain = await backlogDrain(probe, sink, backlog);

    const duplicates = await sql<{
      n: number;
    }>`select (count(*) - count(distinct thing_id))::int as n from effects`.execute(sink.db);
    return {
      paced: {
        targetRate: rate,
        achievedRate: Math.round(committedAt.size / elapsed),
        events: total.length,
        p50Ms: percentile(total, 50),
        p99Ms: percentile(total, 99),
        maxMs: Math.max(...total),
        relayP50Ms: percentile(relay, 50),
        relayP99Ms: percentile(relay, 99),
        consumerP50Ms: percentile(consumer, 50),
        consumerP99Ms: percentile(consumer, 99),
      },
      sustained: [single, batched],
      drain,
      producers,
      duplicates: duplicates.rows[0]!.n,
    };
  } finally {
    await sinkProcess.stop();
    await sinkDatabase.db.destroy();
    await probe.stop();
    await deleteNamespace(namespace);
    await database.drop();
  }
}

export const busPipelineBench: Bench = {
  name: 'bus',
  title: 'bus pipeline: outbox → JetStream → idempotent consumer (real Postgres, real NATS)',
  async run(size) {
    const env = process.env;
    const o =
      size === 'tiny'
        ? { rate: 200, seconds: 1, producers: 2, backlog: 500, warmUpSeconds: 0.5 }
        : {
            rate: Number(env.BENCH_RATE ?? 1000),
            seconds: Number(env.BENCH_SECONDS ?? 10),
            producers: Number(env.BENCH_PRODUCERS ?? 16),
            backlog: Number(env.BENCH_BACKLOG ?? 50_000),
          };
    const { paced, sustained, drain, producers, duplicates } = await runBusPipelineBench(o);
    const at = `paced ${paced.targetRate}/s (achieved ${paced.achievedRate}/s)`;
    const note = `${paced.events} events after ${size === 'tiny' ? 0.5 : 2} s of warm-up; p99 of all samples`;
    return [
      { figure: `${at}: commit→effect p50`, value: paced.p50Ms, unit: 'ms', note },
      {
        figure: `${at}: commit→effect p99`,
        value: paced.p99Ms,
        unit: 'ms',
        target: { on: 'value', comparison: '<', limit: 20 },
        note,
      },
      { figure: `${at}: commit→stored in JetStream p99`, value: paced.relayP99Ms, unit: 'ms', note },
      { figure: `${at}: stored→effect p99`, value: paced.consumerP99Ms, unit: 'ms', note },
      ...sustained.map((run) => ({
        figure: `sustained, ${producers} producers, ${run.eventsPerCommit} event(s) per commit: end to end`,
        value: run.endToEndEventsPerSecond,
        unit: 'events/s',
        target: { on: 'value' as const, comparison: '>=' as const, limit: 5000 },
        note: `${run.events} events, produced ${run.producedPerSecond}/s`,
      })),
      { figure: `backlog of ${drain.events} events drained`, value: drain.eventsPerSecond, unit: 'events/s' },
      {
        figure: 'effects applied twice',
        value: duplicates,
        unit: 'effects',
        target: { on: 'value', comparison: '<=', limit: 0 },
      },
    ];
  },
};
