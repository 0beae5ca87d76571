/**
 * Two replicas of every service and of the gateway, as real processes on one database and one
 * NATS server; customers add and remove devices through both gateways while one replica of each
 * is killed with SIGKILL. Afterwards: every device a customer holds is on the node and nothing
 * else is, the node was told each change once, and each periodic task ran once per period across
 * the replicas, the killed one's leases taken over by the survivor.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { backendServices, desiredPeersRpc, nodeConsumerName, registerNodeRpc } from '@qw/contracts';
import { RpcClient, type BusConnection } from '@qw/platform';
import {
  createTestDatabase,
  eventually,
  freePort,
  keepReporting,
  spawnTsProcess,
  startSmtpCapture,
  startTestBus,
  testCallerKeys,
  type SmtpCapture,
  type SpawnedProcess,
  type TestBus,
  type TestDatabase,
} from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';

type Replica = {
  name: string;
  service: string;
  process: SpawnedProcess;
  internalUrl: string;
  /** A gateway's public listener. */
  publicUrl?: string;
  killed: boolean;
};

const taskPeriodMs = 1000;
const eachPeriodTasks = new Set(['renew-test-subscriptions', 'rotate-due-keys']);
const nodeName = 'replica-node';

let database: TestDatabase;
let bus: TestBus;
let smtp: SmtpCapture;
let node: BusConnection;
const replicas: Replica[] = [];
const gateways: Array<Replica & { publicUrl: string }> = [];

function internalUrlOf(port: number) {
  return `http://127.0.0.1:${port}`;
}

function outputs(): string {
  return [...replicas, ...gateways].map((r) => `--- ${r.name}\n${r.process.output().slice(-1500)}`).join('\n');
}

/** A browser's session against whichever gateway is up, as a load balancer hands requests out. */
class Customer {
  private cookies = new Map<string, string>();
  private accessToken: string | undefined;
  private turn = Math.floor(Math.random() * 2);
  constructor(readonly address: string) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> {
    for (let attempt = 0; ; attempt++) {
      const alive = gateways.filter((g) => !g.killed);
      const gateway = alive[this.turn++ % alive.length]!;
      try {
        const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        const response = await fetch(`${gateway.publicUrl}${path}`, {
          method,
          headers: {
            'x-forwarded-for': this.address,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(cookie ? { cookie } : {}),
            ...(this.accessToken ? { authorization: `Bearer ${this.accessToken}` } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        for (const set of response.headers.getSetCookie()) {
          const [pair] = set.split(';');
          const [name, value] = pair!.split('=') as [string, string];
          if (value) this.cookies.set(name, value);
          else this.cookies.delete(name);
        }
        const text = await response.text();
        const data = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
        if (data && typeof data === 'object' && typeof data.access_token === 'string')
          this.accessToken = data.access_token;
        return { status: response.status, data };
      } catch (error) {
        // The gateway went away under the request: a load balancer sends the next one elsewhere.
        if (attempt >= 5) throw error;
      }
    }
  }
}

async function customerWithPlan(index: number): Promise<Customer> {
  const email = `replica-${index}@example.com`;
  const customer = new Customer(`198.18.7.${index + 10}`);
  const started = await customer.call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
  expect(started.status, JSON.stringify(started.data)).toBe(200);
  await customer.call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
    email,
    card_number: '4242424242424242',
  });
  await customer.call('POST', '/api/auth/signup', { email, password: 'correct horse battery' });
  const claim = await eventually(
    async () => {
      const answer = await customer.call('POST', '/api/checkout/claim', { session_id: started.data.session_id, email });
      return answer.status === 200 ? answer : undefined;
    },
    20_000,
    100,
  );
  expect(claim.status).toBe(200);
  return customer;
}

async function metricsOf(replica: Replica): Promise<string> {
  return (await fetch(`${replica.internalUrl}/metrics`)).text();
}

beforeAll(async () => {
  database = await createTestDatabase('replicas');
  bus = await startTestBus();
  smtp = await startSmtpCapture();
  const vaultKey = randomBytes(32).toString('base64');
  const common = {
    LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? 'warn',
    NODE_ENV: 'test',
    HTTP_HOST: '127.0.0.1',
    // Every task of every service (the platform's own included) runs every second here.
    TASK_PERIODS: `*=${taskPeriodMs}`,
    TASK_LEASE_MS: '1500',
    // Twelve processes on one Postgres beside the other test files: small pools keep them well
    // inside max_connections (100), which ten pools of the default 10 could fill on their own.
    DATABASE_POOL_MAX: '3',
  };
  for (const service of backendServices) {
    const databaseUrl = await database.provision(service);
    for (const index of [0, 1]) {
      const port = await freePort();
      const name = `${service}-${index}`;
      const process = await spawnTsProcess(name, `services/${service}/src/main.ts`, {
        ...common,
        ...bus.env(service),
        CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
        DATABASE_URL: databaseUrl,
        HTTP_PORT: String(port),
        PRIVATE_KEY_ENCRYPTION_KEY: vaultKey,
        MAIL_URL: smtp.url,
      });
      replicas.push({ name, service, process, internalUrl: internalUrlOf(port), killed: false });
    }
  }
  const jwtSecret = randomBytes(32).toString('hex');
  const addressKey = randomBytes(32).toString('hex');
  for (const index of [0, 1]) {
    const port = await freePort();
    const internalPort = await freePort();
    const name = `gateway-${index}`;
    const process = await spawnTsProcess(name, 'services/gateway/src/main.ts', {
      ...common,
      ...bus.env('gateway'),
      CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
      HTTP_PORT: String(port),
      INTERNAL_HTTP_PORT: String(internalPort),
      WEB_DIST: '/nonexistent',
      JWT_SECRET: jwtSecret,
      ADDRESS_HASH_KEY: addressKey,
      TRUST_PROXY: 'true',
    });
    gateways.push({
      name,
      service: 'gateway',
      process,
      internalUrl: internalUrlOf(internalPort),
      publicUrl: internalUrlOf(port),
      killed: false,
    });
  }
  let waiting: string[] = [];
  await eventually(
    async () => {
      const answers = await Promise.all(
        [...replicas, ...gateways].map(async (replica) => {
          const answer = await fetch(`${replica.internalUrl}/readyz`).catch(() => undefined);
          return answer?.status === 200 ? undefined : replica.name;
        }),
      );
      waiting = answers.filter((name) => name !== undefined);
      return waiting.length === 0;
    },
    // Twelve processes compiling the same sources on two cores take a while to start.
    120_000,
    250,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; not ready: ${waiting.join(', ')}\n${outputs()}`);
  });

  const nodeEnv = await bus.addNode(nodeName);
  node = await bus.connect(nodeEnv.NATS_USER, `node-${nodeName}`);
  await new RpcClient(node).request(
    registerNodeRpc,
    {
      region: 'eu-central',
      endpoint: '198.51.100.7:51820',
      public_key: generateKeyPair().publicKey,
      ip: '198.51.100.7',
      tags: [],
    },
    undefined,
    { params: { node: nodeName } },
  );
  keepReporting(node, nodeName);
}, 180_000);

afterAll(async () => {
  await node?.close();
  await Promise.all([...replicas, ...gateways].map((r) => r.process.stop()));
  await smtp?.close();
  await bus?.stop();
  await database?.drop();
});

describe('two replicas of every service, one of each killed mid-churn', () => {
  it('loses no device change, applies none twice, and runs each periodic task once per period', async () => {
    const customers = await Promise.all([0, 1, 2, 3].map((i) => customerWithPlan(i)));
    const acknowledgedAdds = new Set<string>();
    const acknowledgedRemoves = new Set<string>();
    /** Removals asked for, answered or not (one cut off by a killed gateway may or may not have happened). */
    const askedRemoves = new Set<string>();

    /** One customer's churn: add three, remove one, `rounds` times. */
    const churn = async (customer: Customer, rounds: number, label: string) => {
      const held: string[] = [];
      for (let round = 0; round < rounds; round++) {
        for (let i = 0; i < 3; i++) {
          const created = await eventually(
            async () => {
              const answer = await customer.call('POST', '/api/devices', {
                name: `${label} ${round}.${i}`,
                platform: 'linux',
              });
              return answer.status === 201 ? answer : undefined;
            },
            20_000,
            100,
          );
          acknowledgedAdds.add(created.data.device.id);
          held.push(created.data.device.id);
        }
        const victim = held.shift()!;
        askedRemoves.add(victim);
        const removed = await customer.call('DELETE', `/api/devices/${victim}`);
        if (removed.status === 204 || removed.status === 200) acknowledgedRemoves.add(victim);
      }
    };

    await Promise.all(customers.map((customer, i) => churn(customer, 2, `first ${i}`)));

    // Kill, in each service, the replica that holds the most task leases (so a failover happens).
    const leaseHolders = new Map<string, Replica>();
    for (const service of backendServices) {
      const pair = replicas.filter((r) => r.service === service);
      const held = await Promise.all(
        pair.map(async (r) => (await metricsOf(r)).match(/^qw_task_lease_held\{[^}]*\} 1$/gm)?.length ?? 0),
      );
      leaseHolders.set(service, held[0]! >= held[1]! ? pair[0]! : pair[1]!);
    }
    const killedPids = new Map<string, number>();
    const churnDuringKill = Promise.all(customers.map((customer, i) => churn(customer, 3, `second ${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const victim of [...leaseHolders.values(), gateways[0]!]) {
      victim.killed = true;
      killedPids.set(victim.service, victim.process.child.pid!);
      await victim.process.stop('SIGKILL');
    }
    await churnDuringKill;

    // What each customer holds now, as the product answers it.
    const listed = new Map<string, string>();
    for (const customer of customers) {
      const answer = await customer.call('GET', '/api/devices');
      expect(answer.status).toBe(200);
      for (const device of answer.data.devices as Array<{ id: string; public_key: string }>)
        listed.set(device.id, device.public_key);
    }
    for (const id of acknowledgedAdds)
      if (!askedRemoves.has(id)) expect(listed.has(id), `device ${id} acknowledged, then lost`).toBe(true);
    for (const id of acknowledgedRemoves) expect(listed.has(id), `device ${id} removed, still listed`).toBe(false);

    // The node: provisioning's desired peers, and the changes its durable consumer was told.
    const rpc = new RpcClient(node);
    const expected = [...listed.values()].sort();
    await eventually(
      async () => {
        const answer = await rpc.request(desiredPeersRpc, { limit: 5000 }, undefined, { params: { node: nodeName } });
        return JSON.stringify(answer.peers.map((p) => p.public_key).sort()) === JSON.stringify(expected);
      },
      20_000,
      200,
    );
    const consumer = await node.js.consumers.get(
      node.ns.stream('provisioning'),
      node.ns.durable(nodeConsumerName(nodeName)),
    );
    const told = new Set<string>();
    const eventIds: string[] = [];
    await eventually(
      async () => {
        const batch = await consumer.fetch({ max_messages: 500, expires: 1000 });
        for await (const message of batch) {
          const envelope = message.json<{
            id: string;
            data: { change: 'set' | 'remove'; publicKey: string; replaces: string | null };
          }>();
          eventIds.push(envelope.id);
          if (envelope.data.change === 'set') {
            if (envelope.data.replaces) told.delete(envelope.data.replaces);
            told.add(envelope.data.publicKey);
          } else told.delete(envelope.data.publicKey);
          message.ack();
        }
        return JSON.stringify([...told].sort()) === JSON.stringify(expected);
      },
      20_000,
      0,
    );
    expect(new Set(eventIds).size, 'a peer change published twice').toBe(eventIds.length);
    expect(eventIds.length).toBeGreaterThanOrEqual(acknowledgedAdds.size + acknowledgedRemoves.size);

    // Leases: on the survivors, each task's lease is held (gauge 1) by exactly the survivor.
    const survivors = replicas.filter((r) => !r.killed);
    await eventually(async () => {
      for (const survivor of survivors) {
        const text = await metricsOf(survivor);
        const held = text.match(/^qw_task_lease_held\{[^}]*\} 1$/gm) ?? [];
        const known = text.match(/^qw_task_lease_held\{[^}]*\} [01]$/gm) ?? [];
        if (held.length === 0 || held.length !== known.length) return false;
      }
      return true;
    }, 10_000);

    // Stop the survivors (a graceful stop waits for a run under way), then read every task's periods.
    await Promise.all(survivors.map((r) => r.process.stop()));
    const admin = new pg.Client({ connectionString: database.adminUrl });
    await admin.connect();
    try {
      for (const service of backendServices) {
        const schema = service.replace(/-/g, '_');
        const { rows } = await admin.query<{
          task: string;
          period: string;
          holder: string;
          finished: boolean;
          started: string;
        }>(
          `select task, period::text, holder, finished_at is not null as finished, to_char(started_at, 'HH24:MI:SS.MS') as started
           from ${schema}.task_runs order by task, period`,
        );
        const killed = `:${killedPids.get(service)}:`;
        const byTask = new Map<string, typeof rows>();
        for (const row of rows) byTask.set(row.task, [...(byTask.get(row.task) ?? []), row]);
        expect(byTask.size, `${service} ran no task`).toBeGreaterThan(0);
        for (const [task, runs] of byTask) {
          const periods = runs.map((run) => Number(run.period));
          const first = periods[0]!;
          const last = periods[periods.length - 1]!;
          // One row per period (the primary key), and none skipped from the first to the last.
          const story = runs.map((run) => `${run.period} ${run.holder} ${run.started}`).join('\n');
          expect(periods, `${service} ${task}: a period skipped (killed: ${killed})\n${story}`).toEqual(
            Array.from({ length: last - first + 1 }, (_, i) => first + i),
          );
          for (const run of runs) {
            if (run.finished) continue;
            expect(run.holder, `${service} ${task} period ${run.period} unfinished`).toContain(killed);
            expect(eachPeriodTasks.has(task), `${service} ${task} period ${run.period} not run again`).toBe(false);
          }
          // The survivor ran the task after the kill.
          expect(
            runs.at(-1)!.holder,
            `${service} ${task}: last run by the killed replica (${killed})\n${story}`,
          ).not.toContain(killed);
        }
      }
    } finally {
      await admin.end();
    }
  }, 120_000);
});

it('names no address in any log', () => {
  for (const replica of [...replicas, ...gateways]) expect(replica.process.output()).not.toMatch(/@example\./);
});
