/**
 * NATS_STREAM_REPLICAS on a three-server cluster (startNatsCluster): a stream an earlier version
 * declared on one server is brought to three by the next start, the dead-letter stream too, and
 * replicas declaring at once all succeed with one stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, natsClusterProblem, startNatsCluster, type NatsCluster } from '@qw/testkit';
import { ensureDeadLetterStream, ensureStream, type BusConnection } from '../src/index.ts';
import { thingCreated } from './fixtures/probe-services.ts';

const problem = await natsClusterProblem();
if (problem) console.warn(`skipped: ${problem}`);

let cluster: NatsCluster;
let bus: BusConnection;

beforeAll(async () => {
  if (problem) return;
  cluster = await startNatsCluster();
  bus = await cluster.connect(cluster.admin.user);
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await cluster?.stop();
});

describe.skipIf(problem)('stream replicas', () => {
  it('brings a stream declared with one replica to three, idempotently, replicas declaring at once', async () => {
    const name = await ensureStream(bus, 'probe', [thingCreated], { replicas: 1 });
    expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(1);

    const declared = await Promise.all(
      [0, 1, 2].map(() => ensureStream(bus, 'probe', [thingCreated], { replicas: 3 })),
    );
    expect(new Set(declared)).toEqual(new Set([name]));
    expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(3);
    await eventually(async () => {
      const replicas = (await bus.jsm.streams.info(name)).cluster?.replicas ?? [];
      return replicas.length === 2 && replicas.every((replica) => replica.current);
    }, 30_000);
    // Declared again as it is: nothing to change.
    await ensureStream(bus, 'probe', [thingCreated], { replicas: 3 });

    const deadLetters = await ensureDeadLetterStream(bus, { replicas: 1 });
    await ensureDeadLetterStream(bus, { replicas: 3 });
    expect((await bus.jsm.streams.info(deadLetters)).config.num_replicas).toBe(3);
  }, 90_000);
});
