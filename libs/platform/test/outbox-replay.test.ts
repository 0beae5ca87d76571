/**
 * A NATS 2.9 server acknowledges a message before its disk has it (it flushes every two minutes),
 * so a power cut can take a stream's last acknowledged events with it. The outbox keeps published
 * rows past that window and, after reconnecting, publishes again what the stream no longer holds.
 * Here the power cut is played by SIGKILL and by cutting the stream's message file to its first
 * half (what a lost page cache leaves), with the consumer not yet having read those events.
 */
import { randomUUID } from 'node:crypto';
import { readdir, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  consumerSettled,
  createTestDatabase,
  eventually,
  launchService,
  startPrivateNats,
  testNamespace,
  type PrivateNats,
  type TestDatabase,
} from '@qw/testkit';
import { addToOutbox, type RunningService } from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

const events = 200;
/** OUTBOX_RETENTION_MS of the producer; with 0 (a row deleted once published, as before) the test fails. */
const retentionMs = Number(process.env.REPLAY_TEST_RETENTION_MS ?? 300_000);

let nats: PrivateNats;
let database: TestDatabase;
let probe: RunningService<any>;
let sink: RunningService<any> | undefined;
const namespace = testNamespace();

beforeAll(async () => {
  nats = await startPrivateNats();
  database = await createTestDatabase('outboxreplay');
});

afterAll(async () => {
  await sink?.stop();
  await probe?.stop();
  await nats?.stop();
  await database?.drop();
});

/** The message files of a stream in a server's store (`jetstream/<account>/streams/<stream>/msgs/*.blk`). */
async function messageBlocks(storeDir: string, stream: string): Promise<string[]> {
  const accounts = path.join(storeDir, 'jetstream');
  const found: string[] = [];
  for (const account of await readdir(accounts)) {
    const msgs = path.join(accounts, account, 'streams', stream, 'msgs');
    for (const file of await readdir(msgs).catch(() => [] as string[]))
      if (file.endsWith('.blk')) found.push(path.join(msgs, file));
  }
  return found.sort();
}

it('publishes again the acknowledged events a lossy restart took from the stream, each reaching its consumer once', async () => {
  const env = { database, namespace, natsUrl: nats.url };
  probe = await launchService(probeService, { ...env, outboxRetentionMs: retentionMs });
  // The consumer's durable is made, then its service stops: the events wait in the stream.
  sink = await launchService(sinkService(), env);
  await sink.stop();
  sink = undefined;

  const ids = Array.from({ length: events }, () => randomUUID());
  for (const thingId of ids)
    await probe.db.transaction().execute(async (tx) => {
      await tx.insertInto('things').values({ id: thingId, name: 'crate' }).execute();
      await addToOutbox(tx, thingCreated, { thingId, name: 'crate', seats: 1 });
    });
  await eventually(async () => (await probe.relay.backlog()) === 0, 30_000, 50);
  const stream = probe.bus.ns.stream('probe');
  expect((await probe.bus.jsm.streams.info(stream)).state.last_seq).toBe(events);

  // Power cut: the server dies and the stream's file keeps only what reached the disk.
  await nats.kill();
  const blocks = await messageBlocks(nats.storeDir, stream);
  expect(blocks.length).toBeGreaterThan(0);
  const last = blocks.at(-1)!;
  await truncate(last, Math.floor((await stat(last)).size / 2));
  await nats.start();

  sink = await launchService(sinkService(), env);
  await eventually(
    async () => {
      const result = await sql<{ n: number }>`select count(distinct thing_id)::int as n from effects`.execute(sink!.db);
      return result.rows[0]!.n === events;
    },
    60_000,
    200,
  );
  await eventually(() => consumerSettled(sink!.bus, 'probe', 'sink.record-thing'), 30_000, 100);
  const totals = await sql<{ rows: number; things: number }>`
    select count(*)::int as rows, count(distinct thing_id)::int as things from effects`.execute(sink.db);
  expect(totals.rows[0]).toEqual({ rows: events, things: events });
  // The lost ones went out again: the stream holds every event once more.
  const held = await probe.bus.jsm.streams.info(stream);
  expect(held.state.messages).toBe(events);
}, 120_000);
