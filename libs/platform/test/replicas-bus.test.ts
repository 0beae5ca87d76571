import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  consumerSettled,
  createTestDatabase,
  deleteNamespace,
  eventually,
  launchService,
  testNamespace,
  type TestDatabase,
} from '@qw/testkit';
import { defineRpc } from '@qw/contracts';
import { Type } from 'typebox';
import { addToOutbox, endpoint, RpcClient, type RunningService, type ServiceDefinition } from '../src/index.ts';
import { probeService, sinkService, thingCreated } from './fixtures/probe-services.ts';

/**
 * Two replicas of a producing service (two outbox relays on one outbox) and two of a consuming one
 * (one durable shared by both): every event reaches the stream once and is delivered once.
 */
let database: TestDatabase;
let namespace: string;
const probes: RunningService<any>[] = [];
const whoAnswers = defineRpc('probe.rpc.who', Type.Object({}), Type.Object({ replica: Type.Integer() }));
let replicasStarted = 0;
let handled = 0;
/** The probe with an RPC that names the replica answering it. */
const answeringProbe: ServiceDefinition<any> = {
  ...probeService,
  rpc: () => {
    const replica = replicasStarted++;
    return [
      endpoint(whoAnswers, async () => {
        handled += 1;
        return { replica };
      }),
    ];
  },
};
const sinks: RunningService<any>[] = [];

beforeAll(async () => {
  database = await createTestDatabase('busreplicas');
  namespace = testNamespace();
  for (let i = 0; i < 2; i++) probes.push(await launchService(answeringProbe, { database, namespace }));
  for (let i = 0; i < 2; i++) sinks.push(await launchService(sinkService(), { database, namespace }));
});

afterAll(async () => {
  for (const service of [...sinks, ...probes]) await service.stop();
  await deleteNamespace(namespace);
  await database?.drop();
});

describe('relays and consumers side by side', () => {
  it('publishes each outbox row once with two relays, and delivers it once to the durable two replicas share', async () => {
    const count = 600;
    // Both producers commit at once, each waking its own relay; both relays also poll the one outbox.
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        probes[i % 2]!.db.transaction().execute(async (tx) => {
          const thingId = randomUUID();
          await tx
            .insertInto('things')
            .values({ id: thingId, name: `thing ${i}` })
            .execute();
          await addToOutbox(tx, thingCreated, { thingId, name: `thing ${i}`, seats: 1 });
        }),
      ),
    );
    const [probe, sink] = [probes[0]!, sinks[0]!];
    await eventually(async () => (await probe.relay.backlog()) === 0, 20_000);
    await eventually(() => consumerSettled(sink.bus, 'probe', 'sink.record-thing'), 20_000);

    const stream = await probe.bus.jsm.streams.info(probe.bus.ns.stream('probe'));
    expect(stream.state.messages).toBe(count);
    const durable = await sink.bus.jsm.consumers.info(
      sink.bus.ns.stream('probe'),
      sink.bus.ns.durable('sink.record-thing'),
    );
    // One delivery per event across the replicas: nothing redelivered, nothing delivered beyond the count.
    expect(durable.delivered.consumer_seq).toBe(count);
    expect(durable.num_redelivered).toBe(0);
    const effects = await sql<{ n: number; distinct: number }>`
      select count(*)::int as n, count(distinct thing_id)::int as distinct from effects`.execute(sink.db);
    expect(effects.rows[0]).toEqual({ n: count, distinct: count });
  });

  it('spreads requests over the replicas that answer an RPC', async () => {
    const rpc = new RpcClient(sinks[0]!.bus);
    const answers = await Promise.all(Array.from({ length: 200 }, () => rpc.request(whoAnswers, {})));
    const byReplica = new Map<number, number>();
    for (const { replica } of answers) byReplica.set(replica, (byReplica.get(replica) ?? 0) + 1);
    expect([...byReplica.keys()].sort()).toEqual([0, 1]);
    // Each request handled by one replica (a queue group), not by both with the first answer kept.
    expect(handled).toBe(200);
  });
});
