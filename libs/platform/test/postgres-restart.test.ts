import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createTestDatabase,
  deleteNamespace,
  eventually,
  launchService,
  privatePostgresProblem,
  startPrivatePostgres,
  testNamespace,
  type PrivatePostgres,
  type TestDatabase,
  consumerSettled,
} from '@qw/testkit';
import { addToOutbox, type RunningService } from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

const problem = privatePostgresProblem();
if (problem) console.log(`postgres-restart: skipped, ${problem}`);

let server: PrivatePostgres;
let database: TestDatabase;
let namespace: string;
let probe: RunningService<any>;
let sink: RunningService<any>;

beforeAll(async () => {
  if (problem) return;
  server = await startPrivatePostgres();
  database = await createTestDatabase('pgrestart', server.adminUrl);
  namespace = testNamespace();
  probe = await launchService(probeService, { database, namespace });
  sink = await launchService(sinkService(), { database, namespace });
}, 60_000);

afterAll(async () => {
  await sink?.stop();
  await probe?.stop();
  if (namespace) await deleteNamespace(namespace);
  await database?.drop().catch(() => undefined);
  await server?.stop();
});

it.skipIf(problem !== null)(
  'loses no event and applies none twice when Postgres crashes and restarts mid-flight',
  async () => {
    let failedCommits = 0;
    const commit = async () => {
      const thingId = randomUUID();
      try {
        await probe.db.transaction().execute(async (tx) => {
          await tx.insertInto('things').values({ id: thingId, name: 'barrel' }).execute();
          await addToOutbox(tx, thingCreated, { thingId, name: 'barrel', seats: 1 });
        });
      } catch {
        // Refused while the database is down; whether it committed is read from `things` below.
        failedCommits += 1;
      }
    };

    // Four writers: 60 commits while all is well, then the database crashes (down for a second)
    // while they keep trying, then 60 more commits after it is back. Phases by what happened,
    // not by the clock, so a slow machine only takes longer.
    let phase: 'before' | 'crash' | 'after' = 'before';
    let succeeded = 0;
    const counted = async () => {
      const before = failedCommits;
      await commit();
      if (failedCommits === before) succeeded += 1;
      // A refused commit comes back at once: do not spin while the database is down.
      else await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const writers = Array.from({ length: 4 }, async () => {
      while (phase !== 'after' || succeeded < 120) await counted();
    });
    await eventually(() => succeeded >= 60, 60_000, 5);
    phase = 'crash';
    await server.crashAndRestart(1000);
    phase = 'after';
    await Promise.all(writers);

    // The committed state change is the truth: every thing that exists has exactly one effect.
    const things = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from things`.execute(probe.db)).rows[0]!.n;
    const effects = async () =>
      (
        await sql<{ rows: number; things: number }>`
    select count(*)::int as rows, count(distinct thing_id)::int as things from effects`.execute(sink.db)
      ).rows[0]!;
    const committed = await things();
    await eventually(async () => (await effects()).things === committed, 60_000, 200);
    // Everything published has been delivered and handled: the counts are final.
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'), 30_000, 100);
    expect(await effects()).toEqual({ rows: committed, things: committed });
    // The relay deletes a row after JetStream's acknowledgement, which may come after the effect.
    expect(await eventually(async () => (await probe.relay.backlog()) === 0)).toBe(true);
    // Writes were refused while it was down, and the services carried on after it came back.
    expect(failedCommits).toBeGreaterThan(0);
    expect(committed).toBeGreaterThanOrEqual(120);
  },
  120_000,
);
