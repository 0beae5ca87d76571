import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  busAccess,
  desiredPeersRpc,
  deviceConfigRpc,
  eventCatalog,
  fillSubject,
  hostSampled,
  isTemplate,
  latestTelemetryRpc,
  mayAsk,
  nodeBusAccess,
  nodeConsumerName,
  nodeUser,
  operatorUser,
  peersSampled,
  registerNodeRpc,
  rpcCatalog,
  rpcOwner,
  subjectParams,
  subscriptionActivated,
  type BusAccess,
  type BusPrincipal,
  type RpcContract,
} from '@qw/contracts';
import {
  busConnectOptions,
  createEnvelope,
  ensureNatsCertificates,
  inboxPrefixOf,
  Namespace,
  RpcClient,
} from '@qw/platform';
import { eventually, natsClusterProblem, startNatsCluster, startTestBus, type TestBus } from '@qw/testkit';
import { startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';

/**
 * The bus as an attacker on a node agent's host sees it: with that node's credentials, through
 * a plain NATS client (not our RpcClient, which would refuse some of this before sending).
 */
let stack: Stack;
let deviceId: string;
let userId: string;

async function rawClient(user: string): Promise<NatsConnection> {
  const { creds } = stack.testBus.credentials(user);
  return connect({
    servers: stack.testBus.url,
    authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
    inboxPrefix: inboxPrefixOf(user),
    reconnect: false,
    tls: { caFile: stack.testBus.caFile },
  });
}

/** The outcome of a request: the answer, or the server's refusal. */
async function ask(nc: NatsConnection, subject: string, body: unknown): Promise<string> {
  try {
    return (await nc.request(subject, JSON.stringify(body), { timeout: 1500 })).string();
  } catch (error) {
    const message = `${(error as Error).message} ${String((error as { cause?: Error }).cause?.message ?? '')}`;
    return /Permissions Violation/i.test(message) ? 'refused' : `failed: ${message}`;
  }
}

beforeAll(async () => {
  stack = await startStack({ label: 'buspermissions', extra: deviceServices });
  await registerTestNode(stack, 'node-a');
  await registerTestNode(stack, 'node-b');
  const owner = await customerWithPlan(stack, 'victim@example.com');
  const device = await deviceAdded(owner, { name: 'Laptop', platform: 'linux' });
  deviceId = device.id;
  userId = device.user_id;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('NATS permissions', () => {
  it("names every client it holds, each reading replies on its own user's inbox only", async () => {
    // Identity's readers of billing's events attach once billing has declared its stream.
    const readers = stack.services.identity!.consumers;
    await eventually(() => readers.every((consumer) => consumer.describe().state === 'reading'));
    const connections = await stack.testBus.connections!();
    const names = connections.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['identity', 'billing', 'provisioning', 'telemetry', 'gateway-test']));
    for (const service of ['identity', 'billing', 'provisioning', 'telemetry']) {
      const inboxes = connections
        .find((c) => c.name === service)!
        .subscriptions.filter((subject) => subject.startsWith('_INBOX'));
      expect(inboxes.length).toBeGreaterThan(0);
      expect(inboxes.every((subject) => subject.startsWith(`_INBOX_U.${service}.`))).toBe(true);
    }
    // Each of identity's readers is answered on an inbox the server has its subscription for.
    const identity = connections.find((c) => c.name === 'identity')!;
    for (const consumer of readers) expect(identity.subscriptions).toContain(consumer.describe().inbox);
  });

  it('refuses a client without credentials', async () => {
    await expect(
      connect({ servers: stack.testBus.url, reconnect: false, timeout: 1000, tls: { caFile: stack.testBus.caFile } }),
    ).rejects.toThrow(/Authorization/i);
  });

  it("lets a node agent ask only its own node's RPCs", async () => {
    const nc = await rawClient(nodeUser('node-a'));
    try {
      // The attack of the review: another customer's config, private key included.
      expect(
        await ask(nc, deviceConfigRpc.subject, {
          caller: { userId, accountType: 'personal', isAdmin: false, emailVerified: true },
          data: { device_id: deviceId },
        }),
      ).toBe('refused');
      expect(await ask(nc, 'billing.rpc.overview', { data: {} })).toBe('refused');
      expect(await ask(nc, 'identity.rpc.get-me', { data: {} })).toBe('refused');
      // Node B's RPCs, in its name: refused; its own: answered.
      expect(await ask(nc, fillSubject(desiredPeersRpc.subject, { node: 'node-b' }), { data: {} })).toBe('refused');
      expect(
        JSON.parse(await ask(nc, fillSubject(desiredPeersRpc.subject, { node: 'node-a' }), { data: {} })),
      ).toMatchObject({ ok: true });
    } finally {
      await nc.close();
    }
  });

  it('lets a node agent publish neither billing events nor another node’s samples', async () => {
    const nc = await rawClient(nodeUser('node-a'));
    const errors: string[] = [];
    void (async () => {
      for await (const status of nc.status())
        if (status.type === 'error') errors.push(String((status as { error?: Error }).error?.message));
    })();
    try {
      const forged = createEnvelope(subscriptionActivated, {
        subscriptionId: '00000000-0000-4000-8000-000000000001',
        userId,
        orgId: null,
        planCode: 'business250',
        status: 'active',
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
      });
      nc.publish(subscriptionActivated.subject, JSON.stringify(forged));
      const sample = createEnvelope(hostSampled, {
        sampledAt: new Date().toISOString(),
        cpu: 99,
        memUsed: 1,
        memTotal: 2,
        diskUsed: 1,
        diskTotal: 2,
        load1: 9,
        load5: 9,
        load15: 9,
      });
      nc.publish(fillSubject(hostSampled.subject, { node: 'node-b' }), JSON.stringify(sample));
      await nc.flush();
      await eventually(() => errors.length >= 2, 3000, 50);
      expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "billing\.subscription\.activated"/);
      expect(errors.join('\n')).toMatch(/Permissions Violation for Publish to "node\.node-b\.host\.sampled"/);
    } finally {
      await nc.close();
    }
    // Nothing reached billing's stream.
    const admin = await stack.connectAdmin();
    const info = await admin.jsm.streams.info('BILLING');
    const last =
      info.state.last_seq > 0
        ? await admin.jsm.streams
            .getMessage('BILLING', { last_by_subj: subscriptionActivated.subject })
            .catch(() => null)
        : null;
    expect(last?.json<{ data: { planCode: string } }>().data.planCode).not.toBe('business250');
  });

  it("keeps a node out of other nodes' subjects and out of every stream but its own consumer", async () => {
    const nc = await rawClient(nodeUser('node-a'));
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    try {
      const subErrors: string[] = [];
      void (async () => {
        for await (const status of nc.status())
          if (status.type === 'error') subErrors.push(String((status as { error?: Error }).error?.message));
      })();
      nc.subscribe('provisioning.>');
      await nc.flush().catch(() => undefined);
      await eventually(() => subErrors.length > 0, 3000, 50);
      expect(subErrors[0]).toMatch(/Permissions Violation for Subscription to "provisioning\.>"/);
      await expect(jsm.consumers.info('PROVISIONING', nodeConsumerName('node-b'))).rejects.toThrow();
      await expect(
        jsm.consumers.add('PROVISIONING', { durable_name: 'stealer', filter_subject: 'provisioning.>' }),
      ).rejects.toThrow();
      await expect(jsm.streams.getMessage('PROVISIONING', { seq: 1 })).rejects.toThrow();
      await expect(jsm.consumers.info('PROVISIONING', nodeConsumerName('node-a'))).resolves.toMatchObject({
        config: { filter_subject: 'provisioning.peers.node-a' },
      });
    } finally {
      await nc.close().catch(() => undefined);
    }
  });

  it('counts a sample only for peers placed on the node that reports it', async () => {
    const device = (await stack.services
      .provisioning!.db.selectFrom('devices')
      .innerJoin('nodes', 'nodes.id', 'devices.node_id')
      .select(['devices.public_key', 'nodes.name'])
      .where('devices.id', '=', deviceId)
      .executeTakeFirstOrThrow()) as { public_key: string; name: string };
    const other = device.name === 'node-a' ? 'node-b' : 'node-a';
    const sample = () =>
      JSON.stringify(
        createEnvelope(peersSampled, {
          sampledAt: new Date().toISOString(),
          peers: [
            {
              publicKey: device.public_key,
              latestHandshake: Math.floor(Date.now() / 1000),
              rxBytes: 5,
              txBytes: 7,
              maskedEndpoint: null,
            },
          ],
        }),
      );
    const latest = () =>
      stack.services
        .telemetry!.db.selectFrom('device_latest_telemetry')
        .selectAll()
        .where('device_id', '=', deviceId)
        .executeTakeFirst();
    const admin = await stack.connectAdmin();
    const handled = (count: number) =>
      eventually(
        async () => {
          const info = await admin.jsm.consumers.info('NODE', 'telemetry_peers-sampled');
          return info.delivered.stream_seq >= count && info.num_pending === 0 && info.num_ack_pending === 0;
        },
        10_000,
        100,
      );
    // A broken host reports another node's customer as connected: handled, and nothing recorded.
    const liar = await stack.connectNode(other);
    const lie = await liar.bus.js.publish(fillSubject(peersSampled.subject, { node: other }), sample());
    await handled(lie.seq);
    expect(await latest()).toBeUndefined();
    // The node the device is placed on reports it, and that counts.
    const honest = await stack.connectNode(device.name);
    const truth = await honest.bus.js.publish(fillSubject(peersSampled.subject, { node: device.name }), sample());
    await handled(truth.seq);
    const row = await latest();
    const nodes = await stack.services.telemetry!.db.selectFrom('nodes').selectAll().execute();
    expect(row?.node_id).toBe(nodes.find((n) => n.name === device.name)!.id);
  });

  it('keeps the gateway from asking node RPCs, the test and demo tools, and any stream', async () => {
    const nc = await rawClient('gateway');
    try {
      expect(await ask(nc, fillSubject(registerNodeRpc.subject, { node: 'node-a' }), { data: {} })).toBe('refused');
      expect(await ask(nc, '$JS.API.STREAM.INFO.PROVISIONING', {})).toBe('refused');
      // The test clocks and the demo's back-dated sign-ups are tools of tests and the demo, not the gateway's.
      for (const tool of ['billing.rpc.advance-clock', 'billing.rpc.start-clock', 'identity.rpc.demo-sign-up'])
        expect(await ask(nc, tool, { data: {} }), tool).toBe('refused');
    } finally {
      await nc.close();
    }
  });
});

/**
 * Every NATS user against every subject the contracts name: each RPC's subject (a node's in two
 * nodes' names), each event's, every declared durable's JetStream API and acknowledgement
 * subjects, each stream's management and every user's inbox. What the server refuses must be
 * exactly what the declaration does not give that user. On a server of its own with no service
 * running, so what is allowed through has nobody to reach.
 */
/** Each bus the allow-lists are checked on: one server, and a cluster of three where this machine can run one. */
const clusterProblem = await natsClusterProblem();
if (clusterProblem) console.info(`bus-permissions on a cluster: skipped because ${clusterProblem}`);
const buses = [
  { name: 'one server', problem: null, start: (): Promise<TestBus> => startTestBus() },
  { name: 'a three-server cluster', problem: clusterProblem, start: (): Promise<TestBus> => startNatsCluster() },
];

for (const on of buses)
  describe.skipIf(on.problem !== null)(`NATS allow-lists, enumerated, on ${on.name}`, () => {
    const ns = new Namespace('');
    const nodes = ['node-a', 'node-b'];
    const users: Array<{ user: string; access: BusAccess }> = [
      ...(Object.keys(busAccess) as BusPrincipal[]).map((principal) => ({
        user: principal,
        access: busAccess[principal],
      })),
      ...nodes.map((node) => ({ user: nodeUser(node), access: nodeBusAccess(node) })),
    ];
    const filled = (subject: string): Array<{ subject: string; node?: string }> =>
      isTemplate(subject) ? nodes.map((node) => ({ subject: fillSubject(subject, { node }), node })) : [{ subject }];
    const rpcSubjects = rpcCatalog.flatMap((contract) => filled(contract.subject).map((s) => ({ ...s, contract })));
    const eventSubjects = eventCatalog.flatMap((event) => filled(event.subject).map((s) => s.subject));
    const durables = [
      ...new Set(
        users.flatMap(({ access }) => [
          ...Object.entries(access.consumes).flatMap(([owner, names]) => names.map((name) => `${owner}/${name}`)),
          ...(access.uses ?? []),
        ]),
      ),
    ].map((pair) => pair.split('/') as [string, string]);
    const streams = [...new Set(users.flatMap(({ access }) => [...access.declares, ...Object.keys(access.consumes)]))];

    const lists = (contracts: readonly RpcContract[], contract: RpcContract) =>
      contracts.some((listed) => listed.subject === contract.subject);

    /** What the declaration gives a user, read from it directly (not from the generated permissions). */
    function expected(access: BusAccess) {
      const consumes = (owner: string, name: string) => access.consumes[owner]?.includes(name) ?? false;
      const uses = (owner: string, name: string) => access.uses?.includes(`${owner}/${name}`) ?? false;
      const makes = (owner: string) => access.makesConsumersOn?.includes(owner) ?? false;
      const publish = new Map<string, boolean>();
      for (const { subject, node, contract } of rpcSubjects)
        publish.set(subject, lists(access.calls, contract) && (node === undefined || access.node === node));
      for (const subject of eventSubjects)
        publish.set(
          subject,
          access.publishes.some((allowed) => subjectParams(allowed, subject) !== null),
        );
      for (const [owner, name] of durables) {
        const stream = ns.stream(owner);
        const durable = ns.durable(name);
        publish.set(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, consumes(owner, name) || uses(owner, name));
        publish.set(`$JS.ACK.${stream}.${durable}.1.1.1.1.1`, consumes(owner, name) || uses(owner, name));
        publish.set(
          `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
          consumes(owner, name) || uses(owner, name) || makes(owner),
        );
        publish.set(`$JS.API.CONSUMER.CREATE.${stream}.${durable}.${owner}.x`, consumes(owner, name) || makes(owner));
        publish.set(`$JS.API.CONSUMER.DELETE.${stream}.${durable}`, false);
      }
      for (const owner of streams) {
        for (const verb of ['CREATE', 'UPDATE'])
          publish.set(`$JS.API.STREAM.${verb}.${ns.stream(owner)}`, access.declares.includes(owner));
        publish.set(`$JS.API.STREAM.DELETE.${ns.stream(owner)}`, false);
        // The owner reads its own events back by sequence (the outbox's replay after a lossy restart); nobody else.
        publish.set(`$JS.API.STREAM.MSG.GET.${ns.stream(owner)}`, access.declares.includes(owner));
      }
      const subscribe = new Map<string, boolean>();
      for (const { subject, contract } of rpcSubjects) subscribe.set(subject, lists(access.serves, contract));
      for (const subject of eventSubjects) subscribe.set(subject, false);
      for (const other of users) subscribe.set(`${inboxPrefixOf(other.user)}.x`, false);
      return { publish, subscribe };
    }

    let bus: TestBus;
    beforeAll(async () => {
      bus = await on.start();
      for (const node of nodes) await bus.addNode(node);
    }, 90_000);
    afterAll(async () => {
      await bus?.stop();
    });

    /** The subjects the server refused to this user, among those tried. */
    async function refusals(user: string, publish: string[], subscribe: string[]) {
      const nc = await connect({
        servers: bus.url,
        authenticator: credsAuthenticator(new TextEncoder().encode(bus.credentials(user).creds)),
        inboxPrefix: inboxPrefixOf(user),
        reconnect: false,
        tls: { caFile: bus.caFile },
      });
      const refused = { publish: new Set<string>(), subscribe: new Set<string>() };
      void (async () => {
        for await (const status of nc.status()) {
          const message = String((status as { error?: Error }).error?.message ?? '');
          const match = /Permissions Violation for (Publish|Subscription) to "([^"]+)"/.exec(message);
          if (match) refused[match[1] === 'Publish' ? 'publish' : 'subscribe'].add(match[2]!);
        }
      })();
      try {
        for (const subject of publish) nc.publish(subject);
        for (const subject of subscribe) nc.subscribe(subject, { callback: () => undefined });
        // The server answers in order: every refusal is in before the flush's answer; a beat for the status loop.
        await nc.flush();
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        await nc.close();
      }
      return refused;
    }

    const refusedIn = (map: Map<string, boolean>) =>
      [...map]
        .filter(([, allowed]) => !allowed)
        .map(([subject]) => subject)
        .sort();

    it.each(users.map(({ user }) => user))('gives %s exactly what its declaration lists', async (user) => {
      const { access } = users.find((u) => u.user === user)!;
      const want = expected(access);
      const got = await refusals(user, [...want.publish.keys()], [...want.subscribe.keys()]);
      // Allowed means tried and not refused; each list must be refused exactly where the declaration says.
      expect([...got.publish].sort()).toEqual(refusedIn(want.publish));
      const ownInbox = `${inboxPrefixOf(user)}.x`;
      expect([...got.subscribe].sort()).toEqual(refusedIn(want.subscribe).filter((s) => s !== ownInbox));
    });

    it('opens an internal RPC only to the services that ask it, and a node consumer only to its node', () => {
      const askers = (contract: RpcContract) =>
        users.filter(({ access }) => lists(access.calls, contract)).map(({ user }) => user);
      expect(askers(latestTelemetryRpc)).toEqual(['provisioning']);
      const nodeA = expected(nodeBusAccess('node-a'));
      for (const { user, access } of users) {
        const mayPull = expected(access).publish.get(
          `$JS.API.CONSUMER.MSG.NEXT.PROVISIONING.${nodeConsumerName('node-a')}`,
        );
        expect(mayPull, user).toBe(user === nodeUser('node-a'));
      }
      expect(nodeA.publish.get(fillSubject(registerNodeRpc.subject, { node: 'node-b' }))).toBe(false);
    });

    /**
     * node-b's user was issued after the server started (beforeAll) and had exactly its
     * declaration above; here it is revoked while connected. The server is the same process
     * throughout: its id (new at every start) does not change and the admin's connection stays up.
     */
    it('revokes a node user issued at run time: its connection is closed and it is refused, no server restarted', async () => {
      const connectWith = (creds: string) =>
        connect({
          servers: bus.url,
          authenticator: credsAuthenticator(new TextEncoder().encode(creds)),
          reconnect: false,
          timeout: 2000,
          tls: { caFile: bus.caFile },
        });
      const admin = await connectWith(bus.admin.creds);
      const serverId = admin.info?.server_id;
      const revoked = bus.credentials(nodeUser('node-b'));
      const nodeB = await connectWith(revoked.creds);
      const nodeA = await connectWith(bus.credentials(nodeUser('node-a')).creds);
      const bClosed = nodeB.closed();
      try {
        await bus.revoke(nodeUser('node-b'));
        const reason = await Promise.race([
          bClosed,
          new Promise((resolve) => setTimeout(() => resolve('still open 5 s after the server applied it'), 5000)),
        ]);
        expect(String((reason as Error | undefined)?.message ?? reason)).toMatch(/revoked/i);
        await expect(connectWith(revoked.creds)).rejects.toThrow(/Authorization Violation/i);
        // Only that user: another node keeps its connection and its rights.
        expect(nodeA.isClosed()).toBe(false);
        await nodeA.flush();

        // Issued again, the node has a new key and exactly its permissions once more.
        await bus.addNode('node-b');
        const reissued = bus.credentials(nodeUser('node-b'));
        expect(reissued.publicKey).not.toBe(revoked.publicKey);
        const want = expected(nodeBusAccess('node-b'));
        const got = await refusals(nodeUser('node-b'), [...want.publish.keys()], [...want.subscribe.keys()]);
        expect([...got.publish].sort()).toEqual(refusedIn(want.publish));
        const ownInbox = `${inboxPrefixOf(nodeUser('node-b'))}.x`;
        expect([...got.subscribe].sort()).toEqual(refusedIn(want.subscribe).filter((s) => s !== ownInbox));

        expect(admin.isClosed()).toBe(false);
        await admin.flush();
        const later = await connectWith(bus.admin.creds);
        expect(later.info?.server_id).toBe(serverId);
        await later.close();
      } finally {
        await Promise.all([admin, nodeA, nodeB].map((nc) => (nc.isClosed() ? undefined : nc.close())));
      }
    });
  });

/**
 * The services check the asker again: the inbox an answer goes to names the user that may read
 * it, and an RPC answers only users its declaration lets ask it (the operator's tools aside).
 * Sent from the operator's connection, which may publish anything, with another user's inbox.
 */
describe('every RPC checks who asks', () => {
  const askAs = async (asker: string, contract: RpcContract) => {
    const admin = await stack.connectAdmin();
    const inbox = `${inboxPrefixOf(asker)}.${Math.random().toString(36).slice(2)}`;
    const answer = new Promise<string>((resolve) => {
      const sub = admin.nc.subscribe(inbox, { max: 1, callback: (_err, msg) => resolve(msg.string()) });
      setTimeout(() => {
        sub.unsubscribe();
        resolve('no answer');
      }, 3000);
    });
    const subject = fillSubject(contract.subject, { node: 'node-a' });
    admin.nc.publish(subject, JSON.stringify({ data: {} }), { reply: inbox });
    return answer;
  };
  const candidates = [...Object.keys(busAccess), nodeUser('node-a'), nodeUser('node-b')];

  it("stops our own client from asking an RPC its user's calls do not list, saying where to list it", async () => {
    await expect(new RpcClient(stack.bus).request(latestTelemetryRpc, { device_ids: [deviceId] })).rejects.toThrow(
      /telemetry\.rpc\.latest: gateway may not ask it .*bus-access\.ts/,
    );
  });

  it('refuses telemetry.rpc.latest to the gateway and answers provisioning', async () => {
    expect(JSON.parse(await askAs('gateway', latestTelemetryRpc))).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(JSON.parse(await askAs('provisioning', latestTelemetryRpc)).error?.code).not.toBe('forbidden');
  });

  it('refuses every RPC of the running services to a user it does not expect, and answers one it does', async () => {
    const running = rpcCatalog.filter((contract) => Object.hasOwn(stack.services, rpcOwner(contract)));
    expect(running.length).toBeGreaterThan(50);
    const wrong: string[] = [];
    for (const contract of running) {
      const params = { node: 'node-a' };
      const stranger = candidates.find((user) => !mayAsk(user, contract, params))!;
      const refused = JSON.parse(await askAs(stranger, contract));
      if (refused.ok !== false || refused.error.code !== 'forbidden')
        wrong.push(`${contract.subject} answered ${stranger}`);
      const asker = candidates.find((user) => mayAsk(user, contract, params)) ?? operatorUser;
      const answered = await askAs(asker, contract);
      if (answered === 'no answer' || /does not answer/.test(answered))
        wrong.push(`${contract.subject} refused ${asker}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});

describe('TLS to the bus', () => {
  const otherCa = mkdtempSync(path.join(tmpdir(), 'qw-other-ca-'));
  afterAll(() => rmSync(otherCa, { recursive: true, force: true }));

  /** A node agent's connection, as connectBus makes it, tried once. */
  const nodeConnection = async (caFile: string | undefined) => {
    const env = await stack.testBus.addNode('node-a');
    const nc = await connect({
      ...busConnectOptions({
        url: env.NATS_URL,
        name: 'tls-probe',
        credsFile: env.NATS_CREDS,
        caFile,
      }),
      reconnect: false,
      waitOnFirstConnect: false,
      timeout: 2000,
    });
    await nc.close();
    return 'connected';
  };

  it("refuses a node agent that does not verify the server with the bus's CA", async () => {
    await expect(nodeConnection(stack.testBus.caFile)).resolves.toBe('connected');
    // A CA that did not sign the server's certificate (an attacker's server would look like this).
    await expect(nodeConnection(ensureNatsCertificates(otherCa).caFile)).rejects.toThrow(/certificate/i);
    // No CA given: the system's CAs, which did not sign it either.
    await expect(nodeConnection(undefined)).rejects.toThrow(/certificate/i);
  });
});
