import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createTestDatabase, deleteNamespace, eventually, launchService, privatePostgresProblem, startPrivatePostgres, testNamespace,
  type PrivatePostgres, type TestDatabase,
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

it.skipIf(problem !== null)('loses no event and applies none twice when Postgres crashes and restarts mid-flight', async () => {
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

  // Four writers for four seconds; the database crashes after one and is back after two.
  const stopAt = Date.now() + 4000;
  const writers = Array.from({ length: 4 }, async () => {
    while (Date.now() < stopAt) {
      await commit();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await server.crashAndRestart(1000);
  await Promise.all(writers);

  // The committed state change is the truth: every thing that exists has exactly one effect.
  const things = async () => (await sql<{ n: number }>`select count(*)::int as n from things`.execute(probe.db)).rows[0]!.n;
  const effects = async () => (await sql<{ rows: number; things: number }>`
    select count(*)::int as rows, count(distinct thing_id)::int as things from effects`.execute(sink.db)).rows[0]!;
  const committed = await things();
  await eventually(async () => (await effects()).things === committed, 60_000, 200);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await effects()).toEqual({ rows: committed, things: committed });
  expect(await probe.relay.backlog()).toBe(0);
  // Writes were refused while it was down, and the services carried on after it came back.
  expect(failedCommits).toBeGreaterThan(0);
  expect(committed).toBeGreaterThan(100);
}, 120_000);
