import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  advanceProvisioningClockRpc,
  desiredPeersRpc,
  type EventContract,
  fillSubject,
  peersSampled,
  registerNodeRpc,
} from '@qw/contracts';
import { type BusConnection, createEnvelope, RpcClient } from '@qw/platform';
import { eventually, keepReporting } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import type { Static, TSchema } from 'typebox';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

/**
 * Issue #26, "Numbers that should agree": the console's Overview devices, the Telemetry page's rows
 * and the Servers page's peers count different things. Each says what it counts, and here, on the
 * real services with a suspended device, a device whose keys were revoked and a key in its rotation
 * grace, the three reconcile: every device is placed, suspended or without a key; the Servers'
 * peers are the placed devices plus the retiring keys, which is exactly what each node is told to
 * carry; telemetry's rows are the devices with a key that a node has reported on.
 */
let stack: Stack;
let admin: Client;
let ann: Client;
const nodes: Array<{ name: string; id: string; bus: BusConnection; rpc: RpcClient }> = [];
type Device = { id: string; name: string; public_key: string; node: { id: string } };
const devices: Device[] = [];

async function registerNode(name: string, ip: string) {
  const { bus, rpc } = await stack.connectNode(name);
  const answer = await rpc.request(
    registerNodeRpc,
    { region: 'eu-central', endpoint: `${ip}:51820`, public_key: generateKeyPair().publicKey, ip, tags: [] },
    undefined,
    { params: { node: name } },
  );
  keepReporting(bus, name);
  nodes.push({ name, id: answer.node_id, bus, rpc });
}

async function publishAs<S extends TSchema>(
  node: { name: string; bus: BusConnection },
  contract: EventContract<S>,
  data: Static<S>,
) {
  const envelope = createEnvelope(contract, data);
  await node.bus.js.publish(fillSubject(contract.subject, { node: node.name }), JSON.stringify(envelope), {
    msgID: envelope.id,
  });
}

/** Every peer a node is told to carry, page by page, as its agent asks. */
async function desiredPeers(node: (typeof nodes)[number]): Promise<string[]> {
  const keys: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await node.rpc.request(desiredPeersRpc, after ? { after, limit: 2 } : { limit: 2 }, undefined, {
      params: { node: node.name },
    });
    keys.push(...page.peers.map((peer) => peer.public_key));
    if (page.next === null) return keys;
    after = page.next;
  }
}

const telemetryDb = () => stack.services.telemetry!.db;

beforeAll(async () => {
  stack = await startStack({ label: 'adminnumbers', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
  await registerNode('numbers-a', '198.51.100.21');
  await registerNode('numbers-b', '198.51.100.22');
  admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.78');
  ann = await customerWithPlan(stack, 'ann.numbers@example.com');
  for (const name of ['Ann laptop', 'Ann phone', 'Ann tablet', 'Ann desktop', 'Ann router']) {
    devices.push(await deviceAdded(ann, { name, platform: 'linux' }));
  }
  await eventually(async () => {
    const row = await sql<{ n: number }>`select count(*)::int as n from device_keys`.execute(telemetryDb());
    return row.rows[0]!.n === 5;
  }, 15_000);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('admin console: the Overview, Telemetry and Servers figures reconcile', () => {
  it('counts every device once, the peers the nodes carry, and the rows nodes reported', async () => {
    const [laptop, phone, tablet, desktop] = devices as [Device, Device, Device, Device, Device];
    // The nodes report on the laptop, the phone and the tablet, each on its own node.
    const now = Math.floor(Date.now() / 1000);
    for (const device of [laptop, phone, tablet]) {
      const node = nodes.find((n) => n.id === device.node.id)!;
      await publishAs(node, peersSampled, {
        sampledAt: new Date().toISOString(),
        peers: [
          {
            publicKey: device.public_key,
            latestHandshake: now,
            rxBytes: 100,
            txBytes: 50,
            maskedEndpoint: '203.0.113.0/24',
          },
        ],
      });
    }
    await eventually(async () => {
      const row = await sql<{ n: number }>`select count(*)::int as n from device_latest_telemetry`.execute(
        telemetryDb(),
      );
      return row.rows[0]!.n === 3;
    }, 15_000);

    // An operator suspends the phone and revokes the tablet's keys; the desktop's key rotates on
    // its schedule, so its previous key stays on the node for the grace period.
    expect((await admin.call('POST', '/api/admin-device', { action: 'suspend', deviceId: phone.id })).statusCode).toBe(
      200,
    );
    expect(
      (await admin.call('POST', '/api/admin-device', { action: 'revoke_keys', deviceId: tablet.id })).statusCode,
    ).toBe(200);
    expect((await ann.call('PATCH', `/api/devices/${desktop.id}/key-rotation`, { every_days: 30 })).statusCode).toBe(
      200,
    );
    await new RpcClient(await stack.connectAdmin()).request(advanceProvisioningClockRpc, { hours: 30 * 24 + 1 });
    const listed = await ann.call('GET', '/api/devices');
    const rotated = listed.data.devices.find((d: { id: string }) => d.id === desktop.id);
    expect(rotated.public_key).not.toBe(desktop.public_key);
    expect(rotated.previous_key_expires_at).not.toBeNull();
    // Telemetry forgets the tablet's row with its keys.
    await eventually(async () => {
      const row = await sql<{ n: number }>`select count(*)::int as n from device_latest_telemetry`.execute(
        telemetryDb(),
      );
      return row.rows[0]!.n === 2;
    }, 15_000);

    // Overview: every device is exactly one of placed, suspended or without a key.
    const overview = await admin.call('GET', '/api/admin/overview');
    expect(overview.statusCode).toBe(200);
    expect(overview.data.devices).toBe(5);
    expect(overview.data.devices_breakdown).toEqual({ placed: 3, suspended: 1, without_key: 1, peers_retiring: 1 });
    const { placed, suspended, without_key, peers_retiring } = overview.data.devices_breakdown;
    expect(placed + suspended + without_key).toBe(overview.data.devices);

    // Servers: the placed devices and the retiring keys, node by node, are what each node is told
    // to carry.
    const servers = (await admin.call('GET', '/api/admin/servers')).data.servers as Array<{
      id: string;
      peers_placed: number;
      peers_retiring: number;
    }>;
    expect(servers.reduce((n, s) => n + s.peers_placed, 0)).toBe(placed);
    expect(servers.reduce((n, s) => n + s.peers_retiring, 0)).toBe(peers_retiring);
    for (const server of servers) {
      const node = nodes.find((n) => n.id === server.id)!;
      const carried = await desiredPeers(node);
      expect(carried).toHaveLength(server.peers_placed + server.peers_retiring);
    }
    const desktopNode = nodes.find((n) => n.id === desktop.node.id)!;
    expect(await desiredPeers(desktopNode)).toEqual(expect.arrayContaining([desktop.public_key, rotated.public_key]));

    // Telemetry: a row per device with a key that a node reported on: the laptop (placed) and the
    // suspended phone, which keeps its row; not the tablet (no key), nor the desktop (never seen).
    const telemetry = await admin.call('GET', '/api/admin/telemetry?per_page=100');
    expect(telemetry.statusCode).toBe(200);
    expect(telemetry.data.total).toBe(2);
    expect(telemetry.data.rows.map((r: { device_id: string }) => r.device_id).sort()).toEqual(
      [laptop.id, phone.id].sort(),
    );
    const keyed = await admin.call('GET', '/api/admin/devices?per_page=100');
    const hasKeys = new Map(keyed.data.rows.map((d: { id: string; has_keys: boolean }) => [d.id, d.has_keys]));
    for (const row of telemetry.data.rows as Array<{ device_id: string }>)
      expect(hasKeys.get(row.device_id)).toBe(true);
    expect(telemetry.data.total).toBeLessThanOrEqual(placed + suspended);
  });
});
