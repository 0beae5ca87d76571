import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { fillSubject, peersSampled, registerNodeRpc } from '@qw/contracts';
import { createEnvelope, type BusConnection } from '@qw/platform';
import { eventually, keepReporting } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * One owner for "connected" (issue #21): a suspended device whose node still reports a handshake
 * of a moment ago is not connected on any page, the customer's, the organization's or the
 * operator's: the device list, the overview tiles, the organization's overview, the operator's
 * device list and overview, and the Telemetry page (rows, its connected filter and the per-node
 * counts). Real services; the node's samples are published as a node publishes them.
 */
let stack: Stack;
let admin: Client;
let ann: Client;
let owner: Client;
let orgId: string;
let node: { id: string; bus: BusConnection };
type Device = { id: string; public_key: string };
let personal: Device;
let office: Device;

const telemetryDb = () => stack.services.telemetry!.db;
const provisioningDb = () => stack.services.provisioning!.db;

const addDevice = (client: Client, url: string, name: string): Promise<Device> =>
  deviceAdded(client, { name, platform: 'linux' }, url);

/** The node reports both devices with a handshake now, as its agent does every few seconds. */
async function handshakeNow(): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const envelope = createEnvelope(peersSampled, {
    sampledAt: new Date().toISOString(),
    peers: [personal, office].map((device) => ({
      publicKey: device.public_key,
      latestHandshake: now,
      rxBytes: 1000,
      txBytes: 2000,
      maskedEndpoint: '203.0.113.0/24',
    })),
  });
  await node.bus.js.publish(fillSubject(peersSampled.subject, { node: 'views-a' }), JSON.stringify(envelope), {
    msgID: envelope.id,
  });
}

/** What every view says about the two devices (and the counts that include them). */
async function views() {
  const [list, overview, orgOverview, orgList, adminDevices, adminOverview, telemetry, connectedOnly] =
    await Promise.all([
      ann.call('GET', '/api/devices'),
      ann.call('GET', '/api/overview'),
      owner.call('GET', `/api/orgs/${orgId}/overview`),
      owner.call('GET', `/api/orgs/${orgId}/devices`),
      admin.call('GET', '/api/admin/devices?per_page=100'),
      admin.call('GET', '/api/admin/overview'),
      admin.call('GET', '/api/admin/telemetry?per_page=100'),
      admin.call('GET', '/api/admin/telemetry?connected=true&per_page=100'),
    ]);
  const adminRow = (id: string) => adminDevices.data.rows.find((row: { id: string }) => row.id === id);
  const telemetryRow = (id: string) => telemetry.data.rows.find((row: { device_id: string }) => row.device_id === id);
  const nodeSummary = telemetry.data.nodes.find((s: { node: { id: string } }) => s.node.id === node.id);
  return {
    customerList: list.data.devices[0].is_connected,
    overview: overview.data,
    orgList: orgList.data.devices[0].is_connected,
    orgOverview: orgOverview.data,
    adminList: [adminRow(personal.id).is_connected, adminRow(office.id).is_connected],
    adminOverviewConnected: adminOverview.data.active_devices,
    telemetryRows: [telemetryRow(personal.id)?.is_connected, telemetryRow(office.id)?.is_connected],
    telemetryConnectedFilter: connectedOnly.data.total,
    telemetryNodeConnected: nodeSummary?.connected,
  };
}

/** The views once they all say what `expected` says, or as they last were after 10 s. */
async function viewsAgreeingWith(expected: Awaited<ReturnType<typeof views>>) {
  let seen: Awaited<ReturnType<typeof views>> | undefined;
  await eventually(async () => {
    seen = await views();
    return JSON.stringify(seen) === JSON.stringify(expected);
  }, 10_000).catch(() => undefined);
  return seen;
}

beforeAll(async () => {
  stack = await startStack({ label: 'connviews', adminEmails: ['ops.views@quietwire.test'], extra: deviceServices });
  const { bus, rpc } = await stack.connectNode('views-a');
  const registered = await rpc.request(
    registerNodeRpc,
    {
      region: 'eu-central',
      endpoint: '198.51.100.31:51820',
      public_key: generateKeyPair().publicKey,
      ip: '198.51.100.31',
      tags: [],
    },
    undefined,
    { params: { node: 'views-a' } },
  );
  keepReporting(bus, 'views-a');
  node = { id: registered.node_id, bus };
  admin = await signUpConfirmed(stack, 'ops.views@quietwire.test', '198.51.100.78');
  ann = await customerWithPlan(stack, 'ann.views@example.com');
  owner = await customerWithPlan(stack, 'olga.views@example.com', 'business10');
  orgId = await ownOrganization(owner);
  personal = await addDevice(ann, '/api/devices', 'Ann laptop');
  office = await addDevice(owner, `/api/orgs/${orgId}/devices`, 'Office router');
  // Telemetry knows both keys before the node reports on them.
  await eventually(async () => {
    const row = await sql<{ n: number }>`select count(*)::int as n from device_keys`.execute(telemetryDb());
    return row.rows[0]!.n === 2;
  }, 15_000);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('one owner for "connected"', () => {
  it('a device with a handshake a moment ago is connected on every page', async () => {
    await handshakeNow();
    // Telemetry tells provisioning the newer handshakes; its device rows are the read model.
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from devices
        where latest_handshake > now() - interval '1 minute'`.execute(provisioningDb());
      return rows.rows[0]!.n === 2;
    }, 15_000);
    expect(await views()).toEqual({
      customerList: true,
      overview: { devices: 1, connected: 1, vpn_status: 'Online' },
      orgList: true,
      orgOverview: { devices: 1, connected: 1, vpn_status: 'Online' },
      adminList: [true, true],
      adminOverviewConnected: 2,
      telemetryRows: [true, true],
      telemetryConnectedFilter: 2,
      telemetryNodeConnected: 2,
    });
  });

  it('suspended (by its person, by the operator) with a handshake still recent, it is connected on no page', async () => {
    const byAnn = await ann.call('PATCH', `/api/devices/${personal.id}`, { is_active: false });
    expect(byAnn.statusCode).toBe(200);
    const byOperator = await admin.call('POST', '/api/admin-device', { action: 'suspend', deviceId: office.id });
    expect(byOperator.statusCode).toBe(200);
    // The node's last sample still carries a handshake of a moment ago.
    await handshakeNow();
    const expected = {
      customerList: false,
      overview: { devices: 1, connected: 0, vpn_status: 'Idle' },
      orgList: false,
      orgOverview: { devices: 1, connected: 0, vpn_status: 'Idle' },
      adminList: [false, false],
      adminOverviewConnected: 0,
      telemetryRows: [false, false],
      telemetryConnectedFilter: 0,
      telemetryNodeConnected: 0,
    };
    // Telemetry hears of the suspensions by provisioning's events: within moments, every page agrees.
    expect(await viewsAgreeingWith(expected)).toEqual(expected);

    // Activated again, the recent handshake counts again everywhere.
    expect((await ann.call('PATCH', `/api/devices/${personal.id}`, { is_active: true })).statusCode).toBe(200);
    await handshakeNow();
    const again = {
      customerList: true,
      overview: { devices: 1, connected: 1, vpn_status: 'Online' },
      orgList: false,
      orgOverview: { devices: 1, connected: 0, vpn_status: 'Idle' },
      adminList: [true, false],
      adminOverviewConnected: 1,
      telemetryRows: [true, false],
      telemetryConnectedFilter: 1,
      telemetryNodeConnected: 1,
    };
    expect(await viewsAgreeingWith(again)).toEqual(again);
  });
});
