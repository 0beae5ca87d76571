import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { AppError } from '@qw/contracts';
import {
  captureLogs,
  createTestDatabase,
  deleteNamespace,
  eventually,
  launchService,
  testNamespace,
  type TestDatabase,
  consumerSettled,
} from '@qw/testkit';
import { v7 as uuidv7 } from 'uuid';
import {
  addToOutbox,
  bucketOf,
  IdempotentConsumer,
  connectDatabase,
  createEnvelope,
  inboxRetentionMs,
  outboxSequenceOf,
  pruneInbox,
  uuidV7Floor,
  type RunningService,
} from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

let database: TestDatabase;
let namespace: string;
let probe: RunningService<any>;
let sink: RunningService<any>;
const sinkLogs = captureLogs('sink', 'info');

async function createThing(
  service: RunningService<any>,
  name = 'desk',
  seats = 1,
): Promise<{ thingId: string; eventId: string }> {
  const thingId = randomUUID();
  const eventId = await service.db.transaction().execute(async (tx) => {
    await tx.insertInto('things').values({ id: thingId, name }).execute();
    return addToOutbox(tx, thingCreated, { thingId, name, seats });
  });
  return { thingId, eventId };
}

/** A consumer of the sink's, on `owner`'s stream, whose handler does nothing (started by the test). */
function idleSinkConsumer(name: string, owner: string) {
  return new IdempotentConsumer({
    name,
    stream: sink.bus.ns.stream(owner),
    contract: thingCreated,
    db: sink.db,
    bus: sink.bus,
    logger: sinkLogs.logger,
    handler: async () => undefined,
  });
}

/** A consumer of the probe's things that notes the id of each thing it handles, in order. */
function recordingSinkConsumer(name: string) {
  const handled: string[] = [];
  const watched = new IdempotentConsumer({
    name,
    stream: sink.bus.ns.stream('probe'),
    contract: thingCreated,
    db: sink.db,
    bus: sink.bus,
    logger: sinkLogs.logger,
    handler: async (_tx, event) => void handled.push(event.data.thingId),
  });
  return { watched, handled };
}

async function effectsFor(thingId: string): Promise<number> {
  const rows = await sink.db.selectFrom('effects').select('seq').where('thing_id', '=', thingId).execute();
  return rows.length;
}

beforeAll(async () => {
  database = await createTestDatabase('bus');
  namespace = testNamespace();
  probe = await launchService(probeService, { database, namespace });
  sink = await launchService(sinkService({ maxDeliver: 3 }), { database, namespace }, { logger: sinkLogs.logger });
});

afterAll(async () => {
  await sink?.stop();
  await probe?.stop();
  await deleteNamespace(namespace);
  await database?.drop();
});

describe('transactional outbox', () => {
  it('publishes an event only when its state change commits', async () => {
    const rolledBack = randomUUID();
    await expect(
      probe.db.transaction().execute(async (tx) => {
        await tx.insertInto('things').values({ id: rolledBack, name: 'ghost' }).execute();
        await addToOutbox(tx, thingCreated, { thingId: rolledBack, name: 'ghost', seats: 1 });
        throw new Error('abort the unit of work');
      }),
    ).rejects.toThrow('abort the unit of work');

    // A committed event sent after the rolled-back one: once it has arrived, the other would have too.
    const committed = await createThing(probe, 'lamp');
    await eventually(async () => (await effectsFor(committed.thingId)) === 1);
    expect(await effectsFor(rolledBack)).toBe(0);
    expect(await probe.db.selectFrom('things').select('id').where('id', '=', rolledBack).execute()).toHaveLength(0);
    // The relay deletes a row once JetStream has acknowledged it, which can be just after the
    // consumer's effect: the backlog empties, and nothing (the rolled-back event) stays in it.
    expect(await eventually(async () => (await probe.relay.backlog()) === 0)).toBe(true);
  });

  it('publishes a row committed by another process, found by the idle poll', async () => {
    const other = connectDatabase<any>(await database.provision('probe'), 'probe', 1);
    const thingId = randomUUID();
    try {
      await other.db.transaction().execute(async (tx) => {
        await tx.insertInto('things').values({ id: thingId, name: 'elsewhere' }).execute();
        await addToOutbox(tx, thingCreated, { thingId, name: 'elsewhere', seats: 1 });
      });
    } finally {
      await other.db.destroy();
    }
    await eventually(async () => (await effectsFor(thingId)) === 1, 5_000);
  });

  it('delivers an event committed while the relay was stopped, once, after the relay restarts', async () => {
    await probe.relay.stop();
    const { thingId } = await createThing(probe, 'chair');
    const stream = await probe.bus.jsm.streams.info(probe.bus.ns.stream('probe'));
    const before = stream.state.messages;
    // A stopped relay publishes nothing: the row waits, and the sink has handled all there is.
    expect(probe.relay.isRunning).toBe(false);
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
    expect(await probe.relay.backlog()).toBe(1);
    expect((await probe.bus.jsm.streams.info(probe.bus.ns.stream('probe'))).state.messages).toBe(before);
    expect(await effectsFor(thingId)).toBe(0);

    await probe.relay.start();
    await eventually(async () => (await effectsFor(thingId)) === 1);
    // Everything delivered has been handled: one effect is the final count, not a moment's.
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
    expect(await effectsFor(thingId)).toBe(1);
    // The relay deletes a row after JetStream's acknowledgement, which may come after the effect.
    expect(await eventually(async () => (await probe.relay.backlog()) === 0)).toBe(true);
  });

  it('does not duplicate an event the relay published but had not yet marked sent (crash between publish and delete)', async () => {
    await probe.relay.stop();
    const { thingId, eventId } = await createThing(probe, 'shelf');
    const row = await probe.db
      .selectFrom('outbox')
      .select(['subject', 'envelope'])
      .where('id', '=', eventId)
      .executeTakeFirstOrThrow();
    await probe.bus.js.publish(probe.bus.ns.subject(row.subject), JSON.stringify(row.envelope), { msgID: eventId });
    await probe.relay.start();
    await eventually(async () => (await probe.relay.backlog()) === 0);
    await eventually(async () => (await effectsFor(thingId)) === 1);
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
    expect(await effectsFor(thingId)).toBe(1);
  });

  it('numbers each event by its outbox row, so one published after later ones is still known as the older', async () => {
    await probe.relay.stop();
    const first = await createThing(probe, 'stool');
    const second = await createThing(probe, 'bench');
    // The first row's publish "fails": it is held back while the relay sends the second.
    await sql`update outbox set published_at = now() where id = ${first.eventId}`.execute(probe.db);
    await probe.relay.start();
    await eventually(async () => (await probe.relay.backlog()) === 0);
    await sql`update outbox set published_at = null where id = ${first.eventId}`.execute(probe.db);
    probe.relay.wake();
    await eventually(async () => (await probe.relay.backlog()) === 0);

    const stream = probe.bus.ns.stream('probe');
    const last = (await probe.bus.jsm.streams.info(stream)).state.last_seq;
    const read = new Map<string, { at: number; number: number | undefined }>();
    for (const at of [last - 1, last]) {
      const message = await probe.bus.jsm.streams.getMessage(stream, { seq: at });
      read.set(message!.header.get('Nats-Msg-Id'), { at, number: outboxSequenceOf({ headers: message!.header }) });
    }
    const [older, newer] = [read.get(first.eventId)!, read.get(second.eventId)!];
    // The stream holds them the other way round; the numbers keep the order they were made in.
    expect(older.at).toBeGreaterThan(newer.at);
    expect(older.number).toBeTypeOf('number');
    expect(older.number!).toBeLessThan(newer.number!);
    await eventually(async () => (await effectsFor(first.thingId)) === 1);
  });
});

describe('idempotent consumer', () => {
  it('has one effect when the same event is delivered three times', async () => {
    const thingId = randomUUID();
    const envelope = createEnvelope(thingCreated, { thingId, name: 'rug', seats: 2 });
    // Different message ids get past JetStream's de-duplication: three real deliveries.
    for (let i = 0; i < 3; i++) {
      await probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(envelope), {
        msgID: `${envelope.id}-${i}`,
      });
    }
    await eventually(async () => (await effectsFor(thingId)) >= 1);
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
    expect(await effectsFor(thingId)).toBe(1);
    const inbox = await sql<{
      n: number;
    }>`select count(*)::int as n from inbox where event_id = ${envelope.id}`.execute(sink.db);
    expect(inbox.rows[0]?.n).toBe(1);
  });

  it('calls afterCommit once new events committed (their effects visible), not for a duplicate', async () => {
    const thingId = randomUUID();
    const calls: number[] = [];
    // The stream holds earlier tests' events too: only a batch that handled ours is counted.
    let handledOurs = false;
    let hooks = 0;
    const watcher = new IdempotentConsumer({
      name: 'sink.after-commit',
      stream: sink.bus.ns.stream('probe'),
      contract: thingCreated,
      db: sink.db,
      bus: sink.bus,
      logger: sinkLogs.logger,
      handler: async (tx, event) => {
        if (event.data.thingId !== thingId) return;
        handledOurs = true;
        await tx
          .insertInto('effects')
          .values({ thing_id: thingId, event_id: randomUUID(), occurred_at: event.occurredAt })
          .execute();
      },
      // Read from another connection: the effect is there only if the commit came first.
      afterCommit: () => {
        hooks += 1;
        if (!handledOurs) return;
        handledOurs = false;
        void effectsFor(thingId).then((n) => calls.push(n));
      },
    });
    await watcher.start();
    try {
      const envelope = createEnvelope(thingCreated, { thingId, name: 'lamp', seats: 1 });
      await probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(envelope), {
        msgID: `${envelope.id}-a`,
      });
      await eventually(() => calls.length > 0);
      await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.after-commit'));
      const before = calls.length;
      const hooksBefore = hooks;
      // The same event again (another message id): a duplicate, no hook.
      await probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(envelope), {
        msgID: `${envelope.id}-b`,
      });
      await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.after-commit'));
      expect(calls.length).toBe(before);
      expect(hooks).toBe(hooksBefore);
      // Both consumers (sink.record-thing and this one) wrote an effect; the hook saw ours committed.
      expect(calls.every((n) => n >= 1)).toBe(true);
    } finally {
      await watcher.stop();
    }
  });

  it('stops a consumer still waiting for its stream at once', async () => {
    const waiting = idleSinkConsumer('sink.waits', 'nobody');
    await waiting.start();
    expect(waiting.describe()).toEqual({
      state: 'waiting for the stream',
      read: 0,
      queued: 0,
      handling: false,
      notices: [],
    });
    // Let its retry delay grow past a second before stopping it.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const started = Date.now();
    await waiting.stop();
    expect(Date.now() - started).toBeLessThan(200);
    expect(waiting.describe().state).toBe('stopped');
  });

  it('its durable deleted on the server: keeps the notice, declares the durable again and reads on from the start', async () => {
    const { watched, handled } = recordingSinkConsumer('sink.notices');
    await watched.start();
    try {
      const before = await createThing(probe, 'lamp');
      await eventually(() => handled.includes(before.thingId));
      expect(watched.describe()).toMatchObject({ state: 'reading', notices: [] });
      await sink.bus.jsm.consumers.delete(probe.bus.ns.stream('probe'), watched.durableName);
      const notices = await eventually(async () => {
        const seen = watched.describe().notices;
        return seen.some((notice) => /consumer_(deleted|not_found)$/.test(notice)) ? seen : undefined;
      });
      expect(notices.find((notice) => /consumer_(deleted|not_found)$/.test(notice))).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z consumer_(deleted|not_found)$/,
      );
      // Made anew, it reads the stream from its start: the event handled before is a duplicate
      // (the inbox), one published since is handled once.
      const info = await eventually(async () =>
        sink.bus.jsm.consumers.info(probe.bus.ns.stream('probe'), watched.durableName).catch(() => undefined),
      );
      expect(info.config.deliver_policy).toBe('all');
      const after = await createThing(probe, 'desk');
      await eventually(() => handled.includes(after.thingId));
      await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.notices'));
      expect(handled.filter((id) => id === before.thingId)).toHaveLength(1);
      expect(handled.filter((id) => id === after.thingId)).toHaveLength(1);
      expect(watched.describe()).toMatchObject({
        state: 'reading',
        restarted: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z consumer (deleted|not found) on the server$/),
      });
    } finally {
      await watched.stop();
    }
  });

  it('its reading ended by the client (an error from the server): reads again and handles what comes next', async () => {
    const { watched, handled } = recordingSinkConsumer('sink.read-again');
    await watched.start();
    try {
      // What the client does to a consume whose subscription the server refused: it ends the
      // reading with the error.
      const reading = (watched as unknown as { messages: { stop(error?: Error): void } }).messages;
      reading.stop(new Error('Permissions Violation for Subscription'));
      const restarted = await eventually(() => watched.describe().restarted);
      expect(restarted).toMatch(/Z reading failed: Permissions Violation for Subscription$/);
      await eventually(() => watched.describe().state === 'reading');
      const { thingId } = await createThing(probe, 'chair');
      await eventually(() => handled.includes(thingId));
    } finally {
      await watched.stop();
    }
  });

  it("says where it stands: a reading consumer is 'reading', with nothing held once its events are handled", async () => {
    const reading = sink.consumers[0]!;
    const { thingId } = await createThing(probe, 'lamp');
    await eventually(async () => (await effectsFor(thingId)) === 1);
    await eventually(() => !reading.describe().handling);
    expect(reading.describe()).toMatchObject({
      state: 'reading',
      queued: 0,
      handling: false,
      inbox: expect.stringMatching(/^_INBOX/),
    });
  });

  it('stopped while it holds events, handles them before it returns: nothing is left to the ack wait', async () => {
    const ours = new Set<string>();
    const handled: string[] = [];
    let firstBatch: () => void = () => undefined;
    const startedHandling = new Promise<void>((resolve) => {
      firstBatch = resolve;
    });
    const holder = new IdempotentConsumer({
      name: 'sink.stop-holding',
      stream: sink.bus.ns.stream('probe'),
      contract: thingCreated,
      db: sink.db,
      bus: sink.bus,
      logger: sinkLogs.logger,
      // Two at a time, slowly, so most of what the server sent waits in the consumer's queue.
      batchSize: 2,
      handler: async (tx, event) => {
        if (!ours.has(event.data.thingId)) return;
        firstBatch();
        await new Promise((resolve) => setTimeout(resolve, 100));
        handled.push(event.data.thingId);
        await tx
          .insertInto('effects')
          .values({ thing_id: event.data.thingId, event_id: randomUUID(), occurred_at: event.occurredAt })
          .execute();
      },
    });
    // The durable starts with the stream's history: let that pass first.
    await holder.start();
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.stop-holding'), 20_000, 100);
    for (let i = 0; i < 12; i++) {
      const thingId = randomUUID();
      ours.add(thingId);
      const envelope = createEnvelope(thingCreated, { thingId, name: `stool ${i}`, seats: 1 });
      await probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(envelope), {
        msgID: envelope.id,
      });
    }
    await startedHandling;
    const stream = sink.bus.ns.stream('probe');
    const durable = sink.bus.ns.durable('sink.stop-holding');
    // All of them sent to it, most not handled yet.
    await eventually(async () => (await sink.bus.jsm.consumers.info(stream, durable)).num_pending === 0, 5_000, 5);
    expect(handled.length).toBeLessThan(ours.size - 2);
    await holder.stop();
    // Every event it had was handled by it, once, and acknowledged: none waits for another reader.
    expect(new Set(handled)).toEqual(ours);
    expect(handled).toHaveLength(ours.size);
    // The server applies acknowledgements from a queue of the consumer's own, so its count may
    // lag them by a moment; left to the ack wait, one would stay pending for 30 s.
    await eventually(
      async () => {
        const info = await sink.bus.jsm.consumers.info(stream, durable);
        return info.num_ack_pending === 0 && info.num_pending === 0;
      },
      2_000,
      20,
    );
  });

  it('refuses a payload that breaks its schema on publish, naming the field', async () => {
    await expect(
      probe.db
        .transaction()
        .execute((tx) => addToOutbox(tx, thingCreated, { thingId: randomUUID(), name: 'x', seats: 0 })),
    ).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof AppError && error.code === 'validation_failed' && /data\/seats/.test(error.message),
    );
    await expect(
      probe.db
        .transaction()
        .execute((tx) => addToOutbox(tx, thingCreated, { thingId: randomUUID(), seats: 1 } as never)),
    ).rejects.toThrow(/data\/name: is required/);
  });

  it('dead-letters a payload that breaks its schema on receipt, with a log line naming the field', async () => {
    const deadLetters = sink.bus.ns.stream('deadletter');
    const before = (await sink.bus.jsm.streams.info(deadLetters)).state.messages;
    const bad = {
      id: randomUUID(),
      type: thingCreated.subject,
      occurredAt: new Date().toISOString(),
      version: 1,
      data: { thingId: randomUUID(), name: 'bad', seats: 'many' },
    };
    await probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(bad));
    await eventually(async () => (await sink.bus.jsm.streams.info(deadLetters)).state.messages === before + 1);
    const line = await eventually(() =>
      sinkLogs.lines.find((l) => l.msg === 'event dead-lettered' && l.eventId === bad.id),
    );
    expect(String(line.reason)).toContain('data/seats');
    const stored = await sink.bus.jsm.streams.getMessage(deadLetters, {
      last_by_subj: sink.bus.ns.deadLetterSubject('sink_record-thing'),
    });
    expect(stored?.header.get('Qw-Reason')).toContain('data/seats');
    expect(stored?.header.get('Qw-Event-Id')).toBe(bad.id);
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
  });

  it('retries a failing handler and dead-letters the event after the bounded number of deliveries', async () => {
    const deadLetters = sink.bus.ns.stream('deadletter');
    const before = (await sink.bus.jsm.streams.info(deadLetters)).state.messages;
    const { thingId, eventId } = await createThing(probe, 'poison pill');
    await eventually(async () => (await sink.bus.jsm.streams.info(deadLetters)).state.messages === before + 1, 15_000);
    // The dead letter is stored before the line saying so is logged.
    const line = await eventually(() =>
      sinkLogs.lines.find((l) => l.msg === 'event dead-lettered' && l.eventId === eventId),
    );
    expect(String(line.reason)).toMatch(/handler failed 3 times/);
    const retries = sinkLogs.lines.filter((l) => l.msg === 'event handler failed; will retry' && l.eventId === eventId);
    expect(retries).toHaveLength(2);
    expect(await effectsFor(thingId)).toBe(0);
    // Terminated, not left pending: otherwise it comes back after ack_wait for ever.
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'));
  });
});

describe('batch consumer', () => {
  let batchSink: RunningService<any>;
  const batchLogs = captureLogs('sink-batch', 'info');

  beforeAll(async () => {
    batchSink = await launchService(
      sinkService({ maxDeliver: 3, batch: true }),
      { database, namespace },
      { logger: batchLogs.logger },
    );
    // It starts with the stream's history, poison included; let that pass before these tests.
    await eventually(() => consumerSettled(batchSink.bus, 'probe', 'sink-batch.record-things'), 20_000, 100);
  });
  afterAll(async () => {
    await batchSink?.stop();
  });

  async function batchEffects(thingIds: string[]): Promise<Array<{ thing_id: string; tx: string }>> {
    const result = await sql<{ thing_id: string; tx: string }>`
      select thing_id, xmin::text as tx from effects where thing_id = any(${thingIds}::uuid[])`.execute(batchSink.db);
    return result.rows;
  }

  /** Commits `names` as things, one event each, in one transaction while the relay is stopped, so they reach the consumer together. */
  async function commitTogether(names: string[]): Promise<Array<{ thingId: string; eventId: string }>> {
    await probe.relay.stop();
    const created: Array<{ thingId: string; eventId: string }> = [];
    try {
      await probe.db.transaction().execute(async (tx) => {
        for (const name of names) {
          const thingId = randomUUID();
          await tx.insertInto('things').values({ id: thingId, name }).execute();
          created.push({ thingId, eventId: await addToOutbox(tx, thingCreated, { thingId, name, seats: 1 }) });
        }
      });
    } finally {
      await probe.relay.start();
    }
    return created;
  }

  it('takes events that arrive together in one call and one transaction', async () => {
    const things = (await commitTogether(Array.from({ length: 20 }, (_, i) => `shelf ${i}`))).map((t) => t.thingId);
    const rows = await eventually(async () => {
      const found = await batchEffects(things);
      return found.length === 20 ? found : undefined;
    }, 15_000);
    expect(new Set(rows.map((row) => row.thing_id)).size).toBe(20);
    // Rows written by one transaction share its id: fewer transactions than events means batches.
    expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(20);
  });

  it('retries only the event whose batch handler fails, and dead-letters it after the bounded deliveries', async () => {
    const created = await commitTogether(['crate 1', 'crate 2', 'poison crate', 'crate 3', 'crate 4']);
    const poison = created[2]!;
    const good = created.filter((t) => t !== poison).map((t) => t.thingId);
    await eventually(async () => (await batchEffects(good)).length === 4, 15_000);
    const line = await eventually(
      () => batchLogs.lines.find((l) => l.msg === 'event dead-lettered' && l.eventId === poison.eventId),
      15_000,
    );
    expect(String(line.reason)).toMatch(/handler failed 3 times/);
    expect(await batchEffects(good)).toHaveLength(4);
    expect(await batchEffects([poison.thingId])).toHaveLength(0);
  });

  it('split by key: the parts in transactions at the same time, each key in one part and in order', async () => {
    // Two names that land in different parts (the part is a hash of the key).
    const names = ['north', 'south', 'east', 'west', 'up', 'down'];
    const left = names[0]!;
    const right = names.find((name) => bucketOf(name, 2) !== bucketOf(left, 2))!;
    const things = [1, 2, 3, 4].flatMap((i) => [`${left} ${i}`, `${right} ${i}`]);
    // Committed before the consumer starts, so they are waiting for it together.
    const ours = new Set((await commitTogether(things)).map((thing) => thing.thingId));
    const calls: Array<{ names: string[]; tx: string }> = [];
    let running = 0;
    let overlaps = 0;
    const split = new IdempotentConsumer({
      name: 'sink-batch.split',
      stream: batchSink.bus.ns.stream('probe'),
      contract: thingCreated,
      db: batchSink.db,
      bus: batchSink.bus,
      logger: batchLogs.logger,
      split: { count: 2, key: (event) => String((event.data as { name: string }).name.split(' ')[0]) },
      handleMany: async (tx, events) => {
        const mine = events.filter((event) => ours.has(event.data.thingId));
        if (mine.length === 0) return;
        const txid = (await sql<{ id: string }>`select txid_current()::text as id`.execute(tx)).rows[0]!.id;
        calls.push({ names: mine.map((event) => event.data.name), tx: txid });
        // Held a moment: a part that finds the other one running meanwhile ran at the same time.
        running += 1;
        await eventually(() => running === 2, 2_000, 20).then(
          () => {
            overlaps += 1;
          },
          () => undefined,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        running -= 1;
      },
    });
    await split.start();
    try {
      await eventually(() => calls.flatMap((call) => call.names).length === things.length, 15_000);
      await eventually(() => consumerSettled(batchSink.bus, 'probe', 'sink-batch.split'));
    } finally {
      await split.stop();
    }
    // Never both keys in one transaction; each key's events in stream order.
    for (const call of calls) expect(new Set(call.names.map((name) => name.split(' ')[0])).size).toBe(1);
    for (const key of [left, right])
      expect(calls.flatMap((call) => call.names).filter((name) => name.startsWith(`${key} `))).toEqual(
        [1, 2, 3, 4].map((i) => `${key} ${i}`),
      );
    expect(overlaps).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((call) => call.tx)).size).toBe(calls.length);
  });

  it('has one effect when the same event arrives three times in one batch', async () => {
    const thingId = randomUUID();
    const envelope = createEnvelope(thingCreated, { thingId, name: 'stool', seats: 1 });
    await Promise.all(
      [0, 1, 2].map((i) =>
        probe.bus.js.publish(probe.bus.ns.subject(thingCreated.subject), JSON.stringify(envelope), {
          msgID: `${envelope.id}-batch-${i}`,
        }),
      ),
    );
    await eventually(async () => (await batchEffects([thingId])).length >= 1);
    await eventually(() => consumerSettled(batchSink.bus, 'probe', 'sink-batch.record-things'));
    expect(await batchEffects([thingId])).toHaveLength(1);
  });
});

describe('inbox retention', () => {
  it("places every UUID v7 of a millisecond between that millisecond's floor and the next one's", () => {
    const at = Date.parse('2026-11-22T08:00:00.123Z');
    for (let i = 0; i < 50; i++) {
      const id = uuidv7({ msecs: at });
      expect(id >= uuidV7Floor(at)).toBe(true);
      expect(id < uuidV7Floor(at + 1)).toBe(true);
    }
  });

  it('forgets handled events past the retention, and keeps recent ones and ids that are not time-ordered', async () => {
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const old = uuidv7({ msecs: now - 8 * day });
    const recent = uuidv7({ msecs: now - day });
    const notTimeOrdered = '00000000-0000-4000-8000-000000000001';
    const consumer = 'retention-test';
    await sql`insert into inbox (consumer, event_id, processed_at) values
      (${consumer}, ${old}, ${new Date(now - 8 * day)}),
      (${consumer}, ${recent}, ${new Date(now - day)}),
      (${consumer}, ${notTimeOrdered}, ${new Date(now - day)})`.execute(sink.db);
    expect(await pruneInbox(sink.db, [consumer], inboxRetentionMs, now)).toBe(1);
    const left = await sql<{
      event_id: string;
    }>`select event_id from inbox where consumer = ${consumer} order by event_id`.execute(sink.db);
    expect(left.rows.map((row) => row.event_id).sort()).toEqual([notTimeOrdered, recent].sort());
  });
});
