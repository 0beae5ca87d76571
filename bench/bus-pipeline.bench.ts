/**
 * Outbox → JetStream → inbox, measured end to end on this machine with the real relay and the
 * real idempotent consumer: commit-to-effect latency at a paced 1,000 events/s, then sustained
 * events/s with producers committing as fast as they can.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { addManyToOutbox, addToOutbox, type RunningService } from '@qw/platform';
import { connectDatabase } from '@qw/platform/db';
import { createTestDatabase, deleteNamespace, eventually, launchService, sharedNatsUrl, spawnTsProcess, testNamespace } from '@qw/testkit';
import { probeService, thingCreated } from '../libs/platform/test/fixtures/probe-services.ts';

const nowMs = () => performance.timeOrigin + performance.now();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function commitThing(probe: RunningService<any>, thingId: string): Promise<number> {
  await probe.db.transaction().execute(async (tx) => {
    await tx.insertInto('things').values({ id: thingId, name: 'bench' }).execute();
    await addToOutbox(tx, thingCreated, { thingId, name: 'bench', seats: 1 });
  });
  return nowMs();
}

/** One transaction that changes several things at once (one statement), each with its event (one statement). */
async function commitThings(probe: RunningService<any>, count: number): Promise<void> {
  const thingIds = Array.from({ length: count }, () => randomUUID());
  await probe.db.transaction().execute(async (tx) => {
    await tx.insertInto('things').values(thingIds.map((id) => ({ id, name: 'bench' }))).execute();
    await addManyToOutbox(tx, thingCreated, thingIds.map((thingId) => ({ thingId, name: 'bench', seats: 1 })));
  });
}

/** Producers commit back to back for `seconds`; returns events produced and the end-to-end rate. */
async function sustained(probe: RunningService<any>, sink: Sink, producers: number, seconds: number, eventsPerCommit: number) {
  const before = await effectCount(sink);
  let produced = 0;
  const started = nowMs();
  const stopAt = started + seconds * 1000;
  await Promise.all(Array.from({ length: producers }, async () => {
    while (nowMs() < stopAt) {
      if (eventsPerCommit === 1) await commitThing(probe, randomUUID());
      else await commitThings(probe, eventsPerCommit);
      produced += eventsPerCommit;
    }
  }));
  const producedElapsed = (nowMs() - started) / 1000;
  await eventually(async () => (await effectCount(sink)) >= before + produced, 120_000, 50);
  const drainedElapsed = (nowMs() - started) / 1000;
  return { eventsPerCommit, events: produced, producedPerSecond: Math.round(produced / producedElapsed), endToEndEventsPerSecond: Math.round(produced / drainedElapsed) };
}

type Sink = { db: RunningService<any>['db'] };

async function effectCount(sink: Sink): Promise<number> {
  const result = await sql<{ n: number }>`select count(*)::int as n from effects`.execute(sink.db);
  return result.rows[0]!.n;
}

export async function runBusPipelineBench(options: { rate?: number; seconds?: number; producers?: number } = {}) {
  const rate = options.rate ?? 1000;
  const seconds = options.seconds ?? 10;
  const producers = options.producers ?? 16;
  const database = await createTestDatabase('bench');
  const namespace = testNamespace();
  const probe = await launchService(probeService, { database, namespace });
  // The consumer runs in its own process, as a consuming service does in production.
  const sinkUrl = await database.provision('sink-batch');
  const sinkProcess = spawnTsProcess('sink', 'bench/sink.process.ts', { DATABASE_URL: sinkUrl, NATS_URL: sharedNatsUrl, BUS_NAMESPACE: namespace, SINK_BATCH: '1' });
  await eventually(() => sinkProcess.output().includes('ready'), 30_000, 50);
  const sinkDatabase = connectDatabase<any>(sinkUrl, 'sink_batch', 2);
  const sink: Sink = { db: sinkDatabase.db };
  try {
    // Warm-up: streams, consumers, prepared plans and JIT.
    await Promise.all(Array.from({ length: 200 }, () => commitThing(probe, randomUUID())));
    await eventually(async () => (await effectCount(sink)) >= 200, 30_000, 50);

    // 1. Latency at a paced rate: every 10 ms a tick commits rate/100 events in parallel.
    const committedAt = new Map<string, number>();
    const perTick = Math.max(1, Math.round(rate / 100));
    const ticks = seconds * 100;
    const started = nowMs();
    const inflight: Promise<void>[] = [];
    for (let tick = 0; tick < ticks; tick++) {
      const due = started + tick * 10;
      const wait = due - nowMs();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      for (let i = 0; i < perTick; i++) {
        const id = randomUUID();
        inflight.push(commitThing(probe, id).then((at) => void committedAt.set(id, at)));
      }
    }
    await Promise.all(inflight);
    const pacedElapsed = (nowMs() - started) / 1000;
    const expected = 200 + committedAt.size;
    await eventually(async () => (await effectCount(sink)) >= expected, 60_000, 50);
    const rows = await sql<{ thing_id: string; received_ms: number }>`
      select thing_id, extract(epoch from received_at) * 1000 as received_ms from effects`.execute(sink.db);
    const latencies = rows.rows
      .filter((row) => committedAt.has(row.thing_id))
      .map((row) => Number(row.received_ms) - committedAt.get(row.thing_id)!)
      .sort((a, b) => a - b);

    // 2. Sustained throughput: producers commit back to back, one event per transaction, then
    // ten per transaction (the pipeline's own capacity, apart from Postgres' commit rate).
    const single = await sustained(probe, sink, producers, seconds, 1);
    const batched = await sustained(probe, sink, producers, seconds, 10);
    const duplicates = await sql<{ n: number }>`select (count(*) - count(distinct thing_id))::int as n from effects`.execute(sink.db);

    return {
      paced: {
        targetRate: rate,
        achievedRate: Math.round(committedAt.size / pacedElapsed),
        events: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies.at(-1) ?? NaN,
      },
      sustained: [single, batched],
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
