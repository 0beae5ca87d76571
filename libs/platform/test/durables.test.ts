import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import {
  createTestDatabase,
  deleteNamespace,
  eventually,
  sharedNatsUrl,
  testNamespace,
  type TestDatabase,
} from '@qw/testkit';
import { Type } from 'typebox';
import { defineEvent } from '@qw/contracts';
import {
  addToOutbox,
  connectDatabase,
  ensureStream,
  migrateToLatest,
  Namespace,
  startService,
  type RunningService,
  type ServiceConfig,
} from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

/**
 * Streams and durables are declared by their owner, idempotently: the stream by the service whose
 * events it holds, each durable by the service that reads it, at its start. Replicas of a
 * consumer starting together against a fresh bus must all start and leave one durable.
 */
let database: TestDatabase;
let sinkUrl: string;
let probeUrl: string;
let namespace: string;
const running: RunningService<any>[] = [];

const config = (url: string): ServiceConfig => ({
  DATABASE_URL: url,
  NATS_URL: sharedNatsUrl,
  BUS_NAMESPACE: namespace,
  LOG_LEVEL: 'silent',
});

/** What `sink.record-thing` is declared with (libs/platform/src/bus/streams.ts serviceDurableConfig). */
const expectedDurable = (durable: string, filter: string) => ({
  durable_name: durable,
  filter_subject: filter,
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  ack_wait: 30_000_000_000,
  max_ack_pending: 2000,
  max_deliver: -1,
});

async function startReplicas(n: number): Promise<PromiseSettledResult<RunningService<any>>[]> {
  const outcomes = await Promise.allSettled(
    Array.from({ length: n }, () => startService(sinkService(), config(sinkUrl))),
  );
  for (const outcome of outcomes) if (outcome.status === 'fulfilled') running.push(outcome.value);
  return outcomes;
}

async function startProbe(): Promise<RunningService<any>> {
  const probe = await startService(probeService, config(probeUrl));
  running.push(probe);
  return probe;
}

async function durablesOn(service: RunningService<any>, owner: string) {
  const list = await service.bus.jsm.consumers.list(service.bus.ns.stream(owner)).next();
  return list.map((info) => info.config);
}

beforeAll(async () => {
  database = await createTestDatabase('durables');
  sinkUrl = await database.provision('sink');
  probeUrl = await database.provision('probe');
  // The schemas are migrated once beforehand: replicas migrating at once is not what is tested.
  for (const [url, schema, definition] of [
    [sinkUrl, 'sink', sinkService()],
    [probeUrl, 'probe', probeService],
  ] as const) {
    const handle = connectDatabase(url, schema);
    await migrateToLatest(handle.db, schema, new URL(definition.migrations as URL).pathname);
    await handle.db.destroy();
  }
});

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
  await deleteNamespace(namespace);
});

afterAll(async () => {
  await database?.drop();
});

describe('durables declared by their consumer, once per start, idempotently', () => {
  it('starts three replicas at once before the owner: all wait, then one durable reads, each event handled once', async () => {
    namespace = testNamespace();
    const outcomes = await startReplicas(3);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);

    const probe = await startProbe();
    const durable = probe.bus.ns.durable('sink.record-thing');
    const filter = probe.bus.ns.subject('probe.thing.created');
    const configs = await eventually(async () => {
      const found = await durablesOn(probe, 'probe');
      return found.length > 0 ? found : undefined;
    });
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject(expectedDurable(durable, filter));

    const thingId = randomUUID();
    await probe.db.transaction().execute(async (tx) => {
      await tx.insertInto('things').values({ id: thingId, name: 'desk' }).execute();
      await addToOutbox(tx, thingCreated, { thingId, name: 'desk', seats: 1 });
    });
    const sink = running[0]!;
    await eventually(async () => {
      const rows = await sink.db.selectFrom('effects').select('seq').where('thing_id', '=', thingId).execute();
      return rows.length === 1;
    });
    // Every replica is attached by now; a second effect would have had time to land.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const rows = await sink.db.selectFrom('effects').select('seq').where('thing_id', '=', thingId).execute();
    expect(rows).toHaveLength(1);
    expect(await durablesOn(probe, 'probe')).toHaveLength(1);
  });

  it('starts three replicas at once after the owner, and brings a durable an earlier version made to the declared settings', async () => {
    namespace = testNamespace();
    const probe = await startProbe();
    const stream = probe.bus.ns.stream('probe');
    const durable = probe.bus.ns.durable('sink.record-thing');
    const filter = probe.bus.ns.subject('probe.thing.created');
    // As an earlier version left it: a shorter acknowledgement wait, fewer messages in flight.
    await probe.bus.jsm.consumers.add(stream, {
      ...expectedDurable(durable, filter),
      ack_wait: 5_000_000_000,
      max_ack_pending: 100,
    });

    const outcomes = await startReplicas(3);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const configs = await durablesOn(probe, 'probe');
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject(expectedDurable(durable, filter));
  });
});

describe('streams declared by their owner, idempotently', () => {
  const payload = Type.Object({ n: Type.Integer() });
  const older = [defineEvent('race.thing.made', 1, payload)];
  const newer = [...older, defineEvent('race.thing.moved', 1, payload)];

  it("keeps a newer replica's subjects when an older one declares the stream at the same moment", async () => {
    namespace = testNamespace();
    const probe = await startProbe();
    // Two versions of the owner side by side during a rolling start, on fresh streams each time;
    // whichever creates the stream first, the other must still see its subjects in it.
    for (let round = 0; round < 20; round += 1) {
      const bus = { ...probe.bus, ns: new Namespace(`${namespace}_r${round}`) };
      const outcomes = await Promise.allSettled([ensureStream(bus, 'race', older), ensureStream(bus, 'race', newer)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
      const info = await bus.jsm.streams.info(bus.ns.stream('race'));
      expect([...(info.config.subjects ?? [])].sort()).toEqual(
        [bus.ns.subject('race.thing.made'), bus.ns.subject('race.thing.moved')].sort(),
      );
      await bus.jsm.streams.delete(bus.ns.stream('race'));
    }
  });
});
