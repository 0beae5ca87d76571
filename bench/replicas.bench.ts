/**
 * The device path with one and with two replicas of provisioning: device creations per second
 * through the RPC the gateway asks (`provisioning.rpc.create-device`), with many callers at
 * once. Each replica is its own process (the product's entry point) on one database and one NATS
 * server; the requests are spread over the replicas by NATS's queue group, as in production.
 * Billing's and identity's answers come from doubles in this process, so only provisioning works.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { billingEvents, createDeviceRpc, identityEvents, registerNodeRpc, subscriptionActivated } from '@qw/contracts';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import {
  eventually,
  freePort,
  keepReporting,
  spawnTsProcess,
  startServiceAlone,
  testCallerKeys,
  type SpawnedProcess,
} from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { serveProvisioningNeighbours } from '../services/provisioning/test/support/neighbours.ts';
import type { Bench, BenchFigure } from './lib/figures.ts';

export type ReplicasBenchResult = {
  runs: Array<{ replicas: number; requests: number; seconds: number; perSecond: number; p50Ms: number; p99Ms: number }>;
  concurrency: number;
  nodes: number;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export async function runReplicasBench(
  options: { requests?: number; concurrency?: number; nodes?: number } = {},
): Promise<ReplicasBenchResult> {
  const requests = options.requests ?? 1000;
  const concurrency = options.concurrency ?? 32;
  const nodes = options.nodes ?? 4;
  // Fair use lets a person add 30 devices an hour: 20 each, so no request is refused for that.
  const perPerson = 20;
  const alone = await startServiceAlone('bench-replicas', { billing: billingEvents, identity: identityEvents });
  const processes: SpawnedProcess[] = [];
  try {
    const plans = new Map<string, { plan_code: string; status: string; subscription_id: string }>();
    await serveProvisioningNeighbours(alone, (ask) => plans.get(ask.user_id ?? ask.org_id ?? '') ?? null);

    const databaseUrl = await alone.database.provision('provisioning');
    const vaultKey = randomBytes(32).toString('base64');
    const startReplica = async (index: number) => {
      const port = await freePort();
      const child = await spawnTsProcess(`provisioning-${index}`, 'services/provisioning/src/main.ts', {
        ...alone.bus.env('provisioning'),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: String(port),
        DATABASE_URL: databaseUrl,
        CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
        PRIVATE_KEY_ENCRYPTION_KEY: vaultKey,
        MAIL_DIR: 'var/mail-bench',
      });
      processes.push(child);
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        120_000,
        250,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${child.output().slice(-2000)}`);
      });
    };

    await startReplica(0);
    // Several nodes: a device's address is leased under its node's row lock, so on one node every
    // creation would wait for the one before it whatever the number of replicas.
    for (let n = 0; n < nodes; n++) {
      const nodeName = `bench-replicas-${n}`;
      const nodeBus = await alone.connect((await alone.bus.addNode(nodeName)).NATS_USER);
      const node = new RpcClient(nodeBus);
      await node.request(
        registerNodeRpc,
        {
          region: 'europe',
          endpoint: `198.51.100.${10 + n}:51820`,
          public_key: generateKeyPair().publicKey,
          ip: `198.51.100.${10 + n}`,
          tags: [],
          // Placement fills no node past its capacity (1000 unsaid); the bench measures creation, not room.
          capacity: 1_000_000,
        },
        undefined,
        { params: { node: nodeName } },
      );
      keepReporting(nodeBus, nodeName);
    }
    const gateway = new RpcClient(await alone.connect('gateway'));
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    // Signed per request, as the gateway does: a caller token lives a minute.
    const tokenOf = (userId: string) =>
      sign({ userId, accountType: 'personal', isAdmin: false, emailVerified: true } as Parameters<typeof sign>[0]);

    /** People with a Personal plan that provisioning knows of (its copy comes from billing's event). */
    const people = async (count: number) => {
      const ids = Array.from({ length: count }, () => randomUUID());
      for (const userId of ids) {
        const subscriptionId = randomUUID();
        plans.set(userId, { plan_code: 'personal', status: 'active', subscription_id: subscriptionId });
        await alone.publish(subscriptionActivated, {
          subscriptionId,
          userId,
          orgId: null,
          planCode: 'personal',
          status: 'active',
          currentPeriodEnd: null,
          cancelAtPeriodEnd: false,
        });
      }
      // Every one of them may add devices once provisioning has handled their plans.
      for (const userId of ids)
        await eventually(
          async () =>
            (await gateway.request(createDeviceRpc, { name: 'warm-up', platform: 'linux' }, tokenOf(userId))).device !==
            undefined,
          30_000,
          50,
        );
      return ids;
    };

    /** `count` creations by `concurrency` callers at once; answers each one's time. */
    const createDevices = async (count: number, label: string) => {
      const users = await people(Math.ceil(count / (perPerson - 1)));
      const latencies: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < count; i = next++) {
            const token = tokenOf(users[i % users.length]!);
            const at = performance.now();
            await gateway.request(createDeviceRpc, { name: `${label} ${i}`, platform: 'linux' }, token);
            latencies.push(performance.now() - at);
          }
        }),
      );
      return latencies;
    };

    const measure = async (replicas: number) => {
      // Untimed first: a replica just started compiles and warms its pools on its first requests.
      await createDevices(Math.min(200, requests), 'warm-up');
      const started = performance.now();
      const latencies = await createDevices(requests, 'bench');
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      return {
        replicas,
        requests,
        seconds,
        perSecond: Math.round(requests / seconds),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
      };
    };

    const one = await measure(1);
    await startReplica(1);
    const two = await measure(2);
    return { runs: [one, two], concurrency, nodes };
  } finally {
    await Promise.all(processes.map((child) => child.stop()));
    await alone.stop();
  }
}

export const replicasBench: Bench = {
  name: 'replicas',
  title:
    'device path with 1 and 2 replicas of provisioning (separate processes; create-device RPCs, as the gateway asks)',
  async run(size) {
    const result = await runReplicasBench(
      size === 'tiny'
        ? { requests: 40, concurrency: 4, nodes: 2 }
        : {
            requests: Number(process.env.BENCH_REPLICA_REQUESTS ?? 1000),
            concurrency: Number(process.env.BENCH_CONCURRENCY ?? 32),
          },
    );
    const [one] = result.runs;
    const figures: BenchFigure[] = [];
    for (const run of result.runs) {
      const note = `${run.requests} devices on ${result.nodes} nodes by ${result.concurrency} callers at once, after a warm-up`;
      figures.push(
        {
          figure: `${run.replicas} replica(s): devices created`,
          value: run.perSecond,
          unit: 'req/s',
          ...(run.replicas > 1 ? { baseline: { label: '1 replica', value: one!.perSecond } } : {}),
          note,
        },
        { figure: `${run.replicas} replica(s): create-device p99`, value: run.p99Ms, unit: 'ms', note },
      );
    }
    return figures;
  },
};
