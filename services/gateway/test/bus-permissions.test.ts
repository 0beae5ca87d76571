import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  desiredPeersRpc,
  deviceConfigRpc,
  fillSubject,
  hostSampled,
  nodeConsumerName,
  nodeUser,
  peersSampled,
  registerNodeRpc,
  subscriptionActivated,
} from '@qw/contracts';
import { createEnvelope, inboxPrefixOf } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';

/**
 * The bus as an attacker on a node agent's host sees it: with that node's credentials, through
 * a plain NATS client (not our RpcClient, which would refuse some of this before sending).
 */
let stack: Stack;
let deviceId: string;
let userId: string;

async function rawClient(user: string): Promise<NatsConnection> {
  const { password } = stack.testBus.credentials(user);
  return connect({
    servers: stack.testBus.url,
    user,
    pass: password,
    inboxPrefix: inboxPrefixOf(user),
    reconnect: false,
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
  const created = await eventually(
    async () => {
      const response = await owner.call('POST', '/api/devices', { name: 'Laptop', platform: 'linux' });
      return response.statusCode === 201 ? response : undefined;
    },
    15_000,
    200,
  );
  deviceId = created.data.device.id;
  userId = created.data.device.user_id;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('NATS permissions', () => {
  it('refuses a client without credentials', async () => {
    await expect(connect({ servers: stack.testBus.url, reconnect: false, timeout: 1000 })).rejects.toThrow(
      /Authorization/i,
    );
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
