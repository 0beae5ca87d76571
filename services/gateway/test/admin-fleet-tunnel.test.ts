import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCard } from '@qw/contracts';
import { eventually, wireguardLabProblem } from '@qw/testkit';
import { LabNode } from './support/nodes.ts';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

/**
 * The operator console's device actions on real WireGuard (wireguard-go in network namespaces, a
 * real node agent): revoke_keys and suspend stop the tunnel at once; the owner's "Request key"
 * afterwards gives a working one; activate brings it back. The Telemetry page shows the latency
 * the node measured through the tunnel, and the Servers page the node's own host metrics.
 */
const agentPackage = JSON.parse(readFileSync(new URL('../../node-agent/package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const problem = await wireguardLabProblem();
if (problem) console.info(`admin-fleet-tunnel: skipped because ${problem}`);

let stack: Stack;
let node: LabNode;
let owner: Client;
let admin: Client;
let deviceId: string;

async function connectWithDownload(): Promise<string> {
  const response = await owner.call('GET', `/api/device/${deviceId}/config`);
  expect(response.statusCode).toBe(200);
  await node.connect(response.body);
  return response.body;
}

async function action(name: 'activate' | 'suspend' | 'revoke_keys') {
  const answer = await admin.call('POST', '/api/admin-device', { action: name, deviceId });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.data.device;
}

describe.skipIf(problem !== null)('admin device actions on real WireGuard', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'admintunnel', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
    node = await LabNode.start(stack, 'lab-admin-1', { NODE_IP: '203.0.113.52', NODE_SSH_PORT: '2200' });
    admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.78');
    owner = await customerWithPlan(stack, 'tess@example.com');
    const device = await deviceAdded(owner, { name: 'Tess laptop', platform: 'linux' });
    deviceId = device.id;
    await eventually(async () => (await node.peers()).includes(device.public_key), 10_000);
    await connectWithDownload();
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await stack?.stop();
  });

  it('shows the device connected, with the latency the node measured through the tunnel and no packet counts', async () => {
    const row = await eventually(
      async () => {
        const page = await admin.call('GET', '/api/admin/telemetry?connected=true');
        const found = page.data.rows?.find((r: { device_id: string }) => r.device_id === deviceId);
        return found?.latency_ms !== null && found?.latency_ms !== undefined ? found : undefined;
      },
      30_000,
      250,
    );
    expect(row).toMatchObject({ device_name: 'Tess laptop', is_connected: true, rx_packets: null, tx_packets: null });
    expect(row.latency_ms).toBeGreaterThan(0);
    expect(row.latency_ms).toBeLessThan(1000);
    expect(row.rx_bytes).toBeGreaterThan(0);
    const listed = await admin.call('GET', '/api/admin/devices?connected=true');
    expect(listed.data.rows.map((d: { id: string }) => d.id)).toEqual([deviceId]);
    const overview = await admin.call('GET', '/api/admin/overview');
    expect(overview.data).toMatchObject({ devices: 1, active_devices: 1 });
    expect(overview.data.traffic.reduce((n: number, h: { rx_bytes: number }) => n + h.rx_bytes, 0)).toBeGreaterThan(0);
  }, 45_000);

  it("shows the node's own host metrics on its card", async () => {
    const server = await eventually(
      async () => {
        const answer = await admin.call('GET', '/api/admin/servers');
        const [first] = answer.data.servers ?? [];
        return first?.metrics ? first : undefined;
      },
      15_000,
      250,
    );
    expect(server).toMatchObject({ name: 'lab-admin-1', peers_placed: 1, ip: '203.0.113.52', reachable: true });
    // What the agent reports: its package's version, and when it started.
    expect(server.agent_version).toBe(agentPackage.version);
    expect(Date.now() - Date.parse(server.agent_started_at)).toBeLessThan(120_000);
    const card = serverCard(server);
    expect(card.ssh).toBe('ssh root@203.0.113.52 -p 2200');
    expect(card.metrics?.cpu).toMatch(/^\d+\.\d%$/);
    expect(card.metrics?.memory).toMatch(/^\d+%$/);
  }, 30_000);

  it('revoke_keys stops the tunnel at once; the owner\'s "Request key" gives a working one', async () => {
    const before = (await owner.call('GET', '/api/devices')).data.devices[0].public_key;
    const revoked = await action('revoke_keys');
    expect(revoked.has_keys).toBe(false);
    await eventually(async () => !(await node.peers()).includes(before), 10_000, 100);
    expect(await node.ping(1)).toBe(false);
    expect((await owner.call('GET', `/api/device/${deviceId}/config`)).statusCode).toBe(409);
    const rotated = await owner.call('POST', `/api/devices/${deviceId}/key`, {});
    expect(rotated.statusCode).toBe(200);
    await eventually(async () => (await node.peers()).includes(rotated.data.device.public_key), 10_000, 100);
    await connectWithDownload();
    expect(await eventually(() => node.ping(), 15_000, 100)).toBe(true);
  }, 60_000);

  it('suspend stops the tunnel; activate brings it back', async () => {
    const key = (await owner.call('GET', '/api/devices')).data.devices[0].public_key;
    expect((await action('suspend')).is_active).toBe(false);
    await eventually(async () => !(await node.peers()).includes(key), 10_000, 100);
    expect(await node.ping(1)).toBe(false);
    expect((await action('activate')).is_active).toBe(true);
    await eventually(async () => (await node.peers()).includes(key), 10_000, 100);
    // The client retries its handshake every 5 s (WireGuard's REKEY_TIMEOUT): allow several rounds.
    expect(await eventually(() => node.ping(), 30_000, 100)).toBe(true);
  }, 60_000);
});
