/**
 * A tool for working on telemetry's ingest (not a benchmark of the table): the peer-sample
 * consumer's path for one batch at a time (decode of 100 messages, the inbox insert,
 * `recordPeerSamples`, commit) against a fleet of 100 nodes × 1,000 peers, on its own database.
 * Prints, per batch, the wall time, this process's CPU (the replica's share) and the Postgres
 * backend's CPU (from /proc, so Postgres must run on this machine), then the mean of the batches
 * after the first (which inserts every latest row), and checks the tables as the bench does.
 *   npx tsx bench/profile-telemetry-batch.ts [periods]     (default 4; each period is one batch)
 * Compare code by running it on each version in turn, several times: one run is noise on a shared
 * machine. `node --cpu-prof --import tsx bench/profile-telemetry-batch.ts` profiles it.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Static } from 'typebox';
import { peersSampled } from '@qw/contracts';
import { createEnvelope, decodeEnvelope } from '@qw/platform';
import { connectDatabase, migrateToLatest, sql } from '@qw/platform/db';
import { createTestDatabase } from '@qw/testkit';
import { recordPeerSamples } from '../services/telemetry/src/samples/peer-samples.ts';
import type { TelemetryDatabase } from '../services/telemetry/src/database.ts';
import {
  checkIngest,
  expectedIngest,
  fleetSizes,
  readIngest,
  sampleOf,
  seedProjection,
  simulatedFleet,
} from './telemetry.bench.ts';

const periods = Number(process.argv[2] ?? 4);
const size = { ...fleetSizes.full, warmUpPeriods: 0, rounds: 1, periodsPerRound: periods };
const database = await createTestDatabase('tlbatch', undefined, { migrated: true, asyncCommit: true });
const { db, pool } = connectDatabase<TelemetryDatabase>(await database.provision('telemetry'), 'telemetry', 1);
const admin = new pg.Client({ connectionString: database.adminUrl });
try {
  await migrateToLatest(db, 'telemetry', new URL('../services/telemetry/migrations/', import.meta.url).pathname);
  await admin.connect();
  const fleet = simulatedFleet(size, Date.now() - (periods * 10 + 60) * 1000);
  // Telemetry's copy of provisioning's nodes and keys, seeded as the bench seeds it.
  await seedProjection(admin, fleet);
  await admin.query('analyze');
  // The messages as they come off the wire, built before anything is timed.
  const encoder = new TextEncoder();
  const batches = Array.from({ length: periods }, (_, period) =>
    fleet.nodes.map((_, n) => encoder.encode(JSON.stringify(createEnvelope(peersSampled, sampleOf(fleet, n, period))))),
  );
  const backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]!.pid;
  const backendMs = () => {
    const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
  };
  const later = { wall: 0, client: 0, backend: 0, batches: 0 };
  for (const [period, messages] of batches.entries()) {
    const cpu = process.cpuUsage();
    const pgBefore = backendMs();
    const started = performance.now();
    const events = messages.map((bytes, n) => {
      const decoded = decodeEnvelope(bytes, peersSampled);
      if (!decoded.ok) throw new Error(decoded.problems.join('; '));
      return {
        id: decoded.envelope.id,
        node: fleet.nodes[n]!.name,
        sample: decoded.envelope.data as Static<typeof peersSampled.schema>,
      };
    });
    await db.transaction().execute(async (tx) => {
      await sql`insert into inbox (consumer, event_id)
                select 'profile', id from unnest(${events.map((event) => event.id)}::uuid[]) as id`.execute(tx);
      await recordPeerSamples(tx, events);
    });
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const client = (used.user + used.system) / 1000;
    const server = backendMs() - pgBefore;
    console.log(`batch ${period}: wall ${wall.toFixed(0)} ms, client ${client.toFixed(0)} ms, backend ${server} ms`);
    if (period > 0) {
      later.wall += wall;
      later.client += client;
      later.backend += server;
      later.batches += 1;
    }
  }
  if (later.batches > 0)
    console.log(
      `mean of batches after the first (100,000 samples each): wall ${(later.wall / later.batches).toFixed(0)} ms, ` +
        `client ${(later.client / later.batches).toFixed(0)} ms, backend ${(later.backend / later.batches).toFixed(0)} ms`,
    );
  const problems = checkIngest(expectedIngest(fleet, periods), await readIngest(admin));
  console.log(problems.length > 0 ? `WRONG:\n  ${problems.join('\n  ')}` : 'tables checked: right');
  if (problems.length > 0) process.exitCode = 1;
} finally {
  await admin.end().catch(() => undefined);
  await pool.end();
  await database.drop();
}
