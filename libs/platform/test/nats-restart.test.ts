import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createTestDatabase,
  eventually,
  launchService,
  startPrivateNats,
  testNamespace,
  type PrivateNats,
  type TestDatabase,
  consumerSettled,
} from '@qw/testkit';
import { addToOutbox, type RunningService } from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

let nats: PrivateNats;
let database: TestDatabase;
let probe: RunningService<any>;
let sink: RunningService<any>;

beforeAll(async () => {
  nats = await startPrivateNats();
  database = await createTestDatabase('natsrestart');
  const env = { database, namespace: testNamespace(), natsUrl: nats.url };
  probe = await launchService(probeService, env);
  sink = await launchService(sinkService(), env);
});

afterAll(async () => {
  await sink?.stop();
  await probe?.stop();
  await nats?.stop();
  await database?.drop();
});

it('delivers all 500 events, each with one effect, when NATS restarts while they are published', async () => {
  const ids = Array.from({ length: 500 }, () => randomUUID());
  const commit = (thingId: string) =>
    probe.db.transaction().execute(async (tx) => {
      await tx.insertInto('things').values({ id: thingId, name: 'crate' }).execute();
      await addToOutbox(tx, thingCreated, { thingId, name: 'crate', seats: 1 });
    });

  let restart: Promise<void> | undefined;
  for (let i = 0; i < ids.length; i += 10) {
    await Promise.all(ids.slice(i, i + 10).map(commit));
    // Take the broker down a fifth of the way in and bring it back while commits go on.
    if (i === 100) restart = nats.restart(1000);
  }
  await restart;

  await eventually(
    async () => {
      const result = await sql<{ n: number }>`select count(distinct thing_id)::int as n from effects`.execute(sink.db);
      return result.rows[0]!.n === 500;
    },
    60_000,
    200,
  );
  // What a consumer says of itself when a test waits in vain names the connection's loss.
  const notices = sink.consumers[0]!.describe().notices.join('\n');
  expect(notices).toMatch(/connection disconnect/);
  expect(notices).toMatch(/connection reconnect/);
  // Every delivery handled (a late redelivery included) before counting duplicates.
  await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'), 30_000, 100);
  const totals = await sql<{ rows: number; things: number }>`
    select count(*)::int as rows, count(distinct thing_id)::int as things from effects`.execute(sink.db);
  expect(totals.rows[0]).toEqual({ rows: 500, things: 500 });
  // The relay deletes a row after JetStream's acknowledgement, which may come after the effect.
  expect(await eventually(async () => (await probe.relay.backlog()) === 0)).toBe(true);
}, 120_000);
