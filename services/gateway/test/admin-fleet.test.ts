import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  ownerSearchLimit,
  adminDeviceActionRpc,
  adminDeviceCountRpc,
  adminDeviceNamesRpc,
  adminDevicesRpc,
  adminDirectoryRpc,
  adminDrainNodeRpc,
  adminFindUsersRpc,
  adminLatestRpc,
  adminNodeStatsRpc,
  adminOperatorActionsRpc,
  adminPeopleCountsRpc,
  adminServerHistoryRpc,
  adminServersRpc,
  adminTrafficRpc,
  type EventContract,
  type RpcContract,
  fillSubject,
  hostSampled,
  peersSampled,
  registerNodeRpc,
  serverCard,
  type AdminServer,
} from '@qw/contracts';
import { callerTokenSigner, createEnvelope, RpcClient, type BusConnection } from '@qw/platform';
import { eventually, keepReporting, testCallerKeys } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import type { Static, TSchema } from 'typebox';
import { Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * The operator console's fleet through the gateway, on the real services: devices placed on two
 * registered nodes by their people, the nodes' samples published as the nodes publish them (on
 * their own subjects, with their own credentials), and every figure checked against what was
 * made and sent here.
 */
let stack: Stack;
let admin: Client;
let ann: Client;
let bob: Client;
let owner: Client;
let orgId: string;
const nodes = {} as Record<'a' | 'b', { id: string; bus: BusConnection }>;
type Device = { id: string; name: string; public_key: string; node: { id: string; name: string } };
let annDevices: Device[] = [];
let bobDevices: Device[] = [];
let orgDevice: Device;

async function registerNode(name: string, extra: { ssh_user?: string; ssh_port?: number }, ip: string) {
  const { bus, rpc } = await stack.connectNode(name);
  const answer = await rpc.request(
    registerNodeRpc,
    { region: 'eu-central', endpoint: `${ip}:51820`, public_key: generateKeyPair().publicKey, ip, tags: [], ...extra },
    undefined,
    { params: { node: name } },
  );
  keepReporting(bus, name);
  return { id: answer.node_id, bus };
}

/** Publishes as the node does: on its own subject, with its own credentials. */
async function publishAs<S extends TSchema>(
  node: { bus: BusConnection },
  name: string,
  contract: EventContract<S>,
  data: Static<S>,
) {
  const envelope = createEnvelope(contract, data);
  await node.bus.js.publish(fillSubject(contract.subject, { node: name }), JSON.stringify(envelope), {
    msgID: envelope.id,
  });
}

async function addDevices(client: Client, names: string[]): Promise<Device[]> {
  const made: Device[] = [];
  for (const name of names) {
    made.push(await deviceAdded(client, { name, platform: 'linux' }));
  }
  return made;
}

const telemetryDb = () => stack.services.telemetry!.db;
const provisioningDb = () => stack.services.provisioning!.db;
const hourStart = (offsetHours: number) => {
  const at = new Date();
  at.setUTCMinutes(0, 0, 0);
  return new Date(at.getTime() - offsetHours * 3600_000);
};

beforeAll(async () => {
  stack = await startStack({ label: 'adminfleet', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
  nodes.a = await registerNode('fleet-a', { ssh_user: 'ops', ssh_port: 2222 }, '198.51.100.11');
  nodes.b = await registerNode('fleet-b', {}, '198.51.100.12');
  admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.77');
  ann = await customerWithPlan(stack, 'ann.fleet@example.com');
  bob = await customerWithPlan(stack, 'bob.fleet@example.com', 'gaming');
  owner = await customerWithPlan(stack, 'olga.fleet@example.com', 'business10');
  orgId = await ownOrganization(owner);
  annDevices = await addDevices(
    ann,
    Array.from({ length: 8 }, (_, i) => `Ann device ${i + 1}`),
  );
  bobDevices = await addDevices(bob, ['Bob laptop', 'Bob phone', 'Bob tablet']);
  orgDevice = await deviceAdded(owner, { name: 'Office router' }, `/api/orgs/${orgId}/devices`);
  // Telemetry knows every key before the nodes report on them.
  await eventually(async () => {
    const row = await sql<{ n: number }>`select count(*)::int as n from device_keys`.execute(telemetryDb());
    return row.rows[0]!.n === 12;
  }, 15_000);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('admin console: devices', () => {
  it('lists every device with owner, organization and node, paged on the server with the total', async () => {
    const first = await admin.call('GET', '/api/admin/devices?per_page=10');
    expect(first.statusCode).toBe(200);
    expect(first.data).toMatchObject({ total: 12, page: 1, per_page: 10 });
    expect(first.data.rows).toHaveLength(10);
    const second = await admin.call('GET', '/api/admin/devices?per_page=10&page=2');
    expect(second.data).toMatchObject({ total: 12, page: 2 });
    expect(second.data.rows).toHaveLength(2);
    // A page past the end has no rows and still says how many there are; with a filter too.
    const past = await admin.call('GET', '/api/admin/devices?per_page=10&page=3');
    expect(past.data).toMatchObject({ rows: [], total: 12, page: 3 });
    const pastFiltered = await admin.call('GET', '/api/admin/devices?q=BOB.FLEET&per_page=10&page=2');
    expect(pastFiltered.data).toMatchObject({ rows: [], total: 3 });
    const all = [...first.data.rows, ...second.data.rows];
    // Newest first: the organization's device was added last, Ann's first one first.
    expect(all[0].id).toBe(orgDevice.id);
    expect(all.at(-1).id).toBe(annDevices[0]!.id);
    expect(new Set(all.map((d: { id: string }) => d.id)).size).toBe(12);
    const office = all[0];
    expect(office).toMatchObject({
      name: 'Office router',
      is_active: true,
      has_keys: true,
      owner: { email: 'olga.fleet@example.com' },
      organization: { id: orgId },
      node: { id: orgDevice.node.id, name: orgDevice.node.name },
    });
    expect(office.organization.name.length).toBeGreaterThan(0);
    const bobLaptop = all.find((d: { name: string }) => d.name === 'Bob laptop');
    expect(bobLaptop).toMatchObject({ owner: { email: 'bob.fleet@example.com' }, organization: null });
  });

  it('filters by search (name or owner e-mail), node and organization, sorts by name, and counts each', async () => {
    const byEmail = await admin.call('GET', '/api/admin/devices?q=BOB.FLEET');
    expect(byEmail.data.total).toBe(3);
    expect(byEmail.data.rows.map((d: { name: string }) => d.name).sort()).toEqual([
      'Bob laptop',
      'Bob phone',
      'Bob tablet',
    ]);
    const byName = await admin.call('GET', '/api/admin/devices?q=device%201');
    expect(byName.data.rows.map((d: { name: string }) => d.name)).toEqual(['Ann device 1']);
    // A search's % is a character, not a pattern.
    expect((await admin.call('GET', '/api/admin/devices?q=%25')).data.total).toBe(0);
    const onA = await sql<{
      n: number;
    }>`select count(*)::int as n from devices where node_id = ${nodes.a.id}`.execute(provisioningDb());
    const nodeA = await admin.call('GET', `/api/admin/devices?node=${nodes.a.id}&per_page=100`);
    expect(nodeA.data.total).toBe(onA.rows[0]!.n);
    expect(nodeA.data.total).toBeGreaterThan(0);
    expect(nodeA.data.rows.every((d: { node: { id: string } }) => d.node.id === nodes.a.id)).toBe(true);
    const inOrg = await admin.call('GET', `/api/admin/devices?org=${orgId}`);
    expect(inOrg.data.rows.map((d: { id: string }) => d.id)).toEqual([orgDevice.id]);
    const byNameAsc = await admin.call('GET', '/api/admin/devices?sort=name&dir=asc&per_page=10');
    expect(byNameAsc.data.rows[0].name).toBe('Ann device 1');
    expect(byNameAsc.data.rows.map((d: { name: string }) => d.name)).toEqual(
      [...byNameAsc.data.rows.map((d: { name: string }) => d.name)].sort(),
    );
    const bad = await admin.call('GET', '/api/admin/devices?per_page=5000');
    expect(bad.statusCode).toBe(400);
  });
});

describe('admin console: telemetry, overview and servers from what the nodes sent', () => {
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  it('shows connected devices from the nodes samples, filters on them, and fills 24 hourly buckets', async () => {
    // Ann's first device and Bob's laptop, as their nodes report them: three hours of traffic
    // (5 and 3 hours ago; nothing 4 hours ago), then a handshake now.
    const sampleOf = (device: Device, rx: number, tx: number, handshake: number, latencyMs?: number | null) => ({
      publicKey: device.public_key,
      latestHandshake: handshake,
      rxBytes: rx,
      txBytes: tx,
      maskedEndpoint: '203.0.113.0/24',
      ...(latencyMs !== undefined ? { latencyMs } : {}),
    });
    const reported = [annDevices[0]!, bobDevices[0]!];
    const five = new Date(hourStart(5).getTime() + 10 * 60_000);
    const three = new Date(hourStart(3).getTime() + 20 * 60_000);
    for (const [at, rx, tx, handshake, latency] of [
      [five, 1000, 2000, Math.floor(five.getTime() / 1000), undefined],
      [three, 4000, 2500, Math.floor(three.getTime() / 1000), undefined],
      [new Date(), 4500, 2600, nowSeconds(), 12.5],
    ] as const) {
      for (const device of reported) {
        const node = device.node.id === nodes.a.id ? 'a' : 'b';
        await publishAs(nodes[node], `fleet-${node}`, peersSampled, {
          sampledAt: at.toISOString(),
          peers: [sampleOf(device, rx, tx, handshake, device === annDevices[0] ? latency : null)],
        });
      }
    }
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from device_latest_telemetry
        where rx_bytes = 4500`.execute(telemetryDb());
      return rows.rows[0]!.n === 2;
    }, 15_000);
    // Telemetry tells provisioning the newer handshakes; its device list filters on them.
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from devices
        where latest_handshake > now() - interval '3 minutes'`.execute(provisioningDb());
      return rows.rows[0]!.n === 2;
    }, 15_000);

    const overview = await admin.call('GET', '/api/admin/overview');
    expect(overview.statusCode).toBe(200);
    expect(overview.data).toMatchObject({ users: 4, organizations: 1, devices: 12, active_devices: 2 });
    const traffic = overview.data.traffic as Array<{ hour: string; rx_bytes: number; tx_bytes: number }>;
    expect(traffic).toHaveLength(24);
    expect(traffic[0]!.hour).toBe(hourStart(23).toISOString());
    expect(traffic[23]!.hour).toBe(hourStart(0).toISOString());
    const at = (offset: number) => traffic.find((h) => h.hour === hourStart(offset).toISOString())!;
    // Two devices each: the first sample counts whole, later ones what the counters grew by.
    expect(at(5)).toMatchObject({ rx_bytes: 2000, tx_bytes: 4000 });
    expect(at(4)).toMatchObject({ rx_bytes: 0, tx_bytes: 0 });
    expect(at(3)).toMatchObject({ rx_bytes: 6000, tx_bytes: 1000 });
    expect(at(0)).toMatchObject({ rx_bytes: 1000, tx_bytes: 200 });
    const sum = traffic.reduce((n, h) => n + h.rx_bytes, 0);
    expect(sum).toBe(9000);

    const connected = await admin.call('GET', '/api/admin/devices?connected=true');
    expect(connected.data.total).toBe(2);
    expect(connected.data.rows.map((d: { id: string }) => d.id).sort()).toEqual(reported.map((d) => d.id).sort());
    expect(connected.data.rows.every((d: { is_connected: boolean }) => d.is_connected)).toBe(true);
    const idle = await admin.call('GET', '/api/admin/devices?connected=false&per_page=100');
    expect(idle.data.total).toBe(10);
    const bobConnected = await admin.call('GET', '/api/admin/devices?connected=true&q=bob.fleet');
    expect(bobConnected.data.rows.map((d: { name: string }) => d.name)).toEqual(['Bob laptop']);
  });

  it('lists the latest row per device, sorted, with the measured latency and null where nothing was measured', async () => {
    const page = await admin.call('GET', '/api/admin/telemetry?sort=rx_bytes&dir=desc');
    expect(page.statusCode).toBe(200);
    expect(page.data.total).toBe(2);
    const ann1 = page.data.rows.find((r: { device_id: string }) => r.device_id === annDevices[0]!.id);
    expect(ann1).toMatchObject({
      device_name: 'Ann device 1',
      rx_bytes: 4500,
      tx_bytes: 2600,
      latency_ms: 12.5,
      rx_packets: null,
      tx_packets: null,
      endpoint: '203.0.113.0/24',
      is_connected: true,
    });
    const bob1 = page.data.rows.find((r: { device_id: string }) => r.device_id === bobDevices[0]!.id);
    expect(bob1).toMatchObject({ device_name: 'Bob laptop', latency_ms: null });
    const summed = page.data.nodes.reduce(
      (n: { devices: number; connected: number }, s: { devices: number; connected: number }) => ({
        devices: n.devices + s.devices,
        connected: n.connected + s.connected,
      }),
      { devices: 0, connected: 0 },
    );
    expect(summed).toEqual({ devices: 2, connected: 2 });
    const annNode = page.data.nodes.find((s: { node: { id: string } }) => s.node.id === annDevices[0]!.node.id);
    expect(annNode.latency_ms).toBe(12.5);
    expect(['fleet-a', 'fleet-b']).toContain(annNode.node.name);
    const onlyA = await admin.call('GET', `/api/admin/telemetry?node=${nodes.a.id}`);
    expect(onlyA.data.rows.every((r: { node: { id: string } }) => r.node.id === nodes.a.id)).toBe(true);
  });

  it('shows one card per server: fresh metrics formatted, stale ones as "No recent metrics.", the ssh line', async () => {
    await publishAs(nodes.a, 'fleet-a', hostSampled, {
      sampledAt: new Date().toISOString(),
      cpu: 12.345,
      memUsed: 3 * 1024 ** 3,
      memTotal: 8 * 1024 ** 3,
      diskUsed: 20 * 1024 ** 3,
      diskTotal: 60 * 1024 ** 3,
      load1: 0.5,
      load5: 0.256,
      load15: 1,
    });
    await publishAs(nodes.b, 'fleet-b', hostSampled, {
      sampledAt: new Date(Date.now() - 400_000).toISOString(),
      cpu: 99,
      memUsed: 1,
      memTotal: 2,
      diskUsed: 1,
      diskTotal: 2,
      load1: 9,
      load5: 9,
      load15: 9,
    });
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from vps_metrics`.execute(telemetryDb());
      return rows.rows[0]!.n === 2;
    }, 15_000);
    const answer = await admin.call('GET', '/api/admin/servers');
    expect(answer.statusCode).toBe(200);
    const servers = answer.data.servers as AdminServer[];
    expect(servers.map((s) => s.name)).toEqual(['fleet-a', 'fleet-b']);
    const [a, b] = servers as [AdminServer, AdminServer];
    const placed = await sql<{ node_id: string; n: number }>`select node_id, count(*)::int as n from devices
      where is_active and public_key is not null group by node_id`.execute(provisioningDb());
    expect(a.peers_placed).toBe(placed.rows.find((r) => r.node_id === a.id)?.n);
    expect(a.peers_placed + b.peers_placed).toBe(12);
    expect(a.peers_connected + b.peers_connected).toBe(2);
    expect(b.metrics).toBeNull();
    expect(serverCard(a)).toEqual({
      ssh: 'ssh ops@198.51.100.11 -p 2222',
      metrics: { cpu: '12.3%', load: ['0.50', '0.26', '1.00'], memory: '38%', disk: '33%' },
      message: null,
    });
    expect(serverCard(b)).toEqual({ ssh: 'ssh root@198.51.100.12', metrics: null, message: 'No recent metrics.' });
  });
  it("gives a server's last 24 hours in 5-minute buckets: means, peaks, traffic rates from its counters, and how much of the day it reported", async () => {
    // Three samples 15 s apart in one bucket, then one in a later bucket after a counter reset.
    const bucketMs = 300_000;
    const start = Math.floor((Date.now() - 3_600_000) / bucketMs) * bucketMs;
    const samples = [
      { at: start + 15_000, cpu: 10, rx: 1_000, tx: 500, peers: 4 },
      { at: start + 30_000, cpu: 20, rx: 16_000, tx: 3_500, peers: 6 },
      { at: start + 45_000, cpu: 30, rx: 31_000, tx: 6_500, peers: 5 },
      { at: start + 2 * bucketMs + 15_000, cpu: 50, rx: 100, tx: 100, peers: 5 },
    ];
    for (const sample of samples)
      await publishAs(nodes.a, 'fleet-a', hostSampled, {
        sampledAt: new Date(sample.at).toISOString(),
        cpu: sample.cpu,
        memUsed: 2 * 1024 ** 3,
        memTotal: 8 * 1024 ** 3,
        diskUsed: 1,
        diskTotal: 2,
        load1: sample.cpu / 100,
        load5: 0,
        load15: 0,
        netRxBytes: sample.rx,
        netTxBytes: sample.tx,
        peers: sample.peers,
      });
    await eventually(async () => {
      const rows = await sql<{ n: number }>`select count(*)::int as n from vps_metrics where peers is not null`.execute(
        telemetryDb(),
      );
      return rows.rows[0]!.n === samples.length;
    }, 15_000);
    const answer = await admin.call('GET', `/api/admin/servers/${nodes.a.id.toUpperCase()}/history`);
    expect(answer.statusCode).toBe(200);
    const history = answer.data as {
      node_id: string;
      bucket_seconds: number;
      reported_share: number;
      buckets: Array<{
        at: string;
        cpu: number | null;
        memory: number | null;
        rx_rate: number | null;
        tx_rate: number | null;
        peers: number | null;
        load1: number | null;
      }>;
    };
    expect(history.node_id).toBe(nodes.a.id);
    expect(history.bucket_seconds).toBe(300);
    expect(history.buckets).toHaveLength(288);
    const first = history.buckets.find((bucket) => Date.parse(bucket.at) === start);
    expect(first).toMatchObject({
      at: new Date(start).toISOString(),
      cpu: 20,
      memory: 25,
      rx_rate: 1_000,
      tx_rate: 200,
      peers: 6,
    });
    expect(first?.load1).toBeCloseTo(0.2, 9);
    const afterReset = history.buckets.find((bucket) => Date.parse(bucket.at) === start + 2 * bucketMs);
    expect(afterReset).toMatchObject({ cpu: 50, rx_rate: null, tx_rate: null, peers: 5 });
    const between = history.buckets.find((bucket) => Date.parse(bucket.at) === start + bucketMs);
    expect(between).toMatchObject({ cpu: null, memory: null, rx_rate: null, peers: null });
    // The earlier test's fresh sample of this node falls in one more bucket.
    const reported = history.buckets.filter((bucket) => bucket.cpu !== null).length;
    expect(reported).toBe(3);
    expect(history.reported_share).toBeCloseTo(3 / 288, 6);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-server'])
      expect((await admin.call('GET', `/api/admin/servers/${id}/history`)).statusCode, id).toBe(404);
  });
});

describe('admin console: device actions and drains', () => {
  const operatorActions = async () =>
    (
      await sql<{
        kind: string;
        target_id: string;
      }>`select kind, target_id from operator_actions order by at, id`.execute(provisioningDb())
    ).rows;
  const deviceRow = (id: string) =>
    provisioningDb().selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('suspends and activates a device, each audited, and the list reloads with the change', async () => {
    const target = bobDevices[1]!;
    const suspended = await admin.call('POST', '/api/admin-device', { action: 'suspend', deviceId: target.id });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.data).toMatchObject({ ok: true, device: { id: target.id, is_active: false } });
    expect(await deviceRow(target.id)).toMatchObject({ is_active: false, suspended_reason: 'admin' });
    const inactive = await admin.call('GET', '/api/admin/devices?active=false');
    expect(inactive.data.rows.map((d: { id: string }) => d.id)).toEqual([target.id]);
    const activated = await admin.call('POST', '/api/admin-device', { action: 'activate', deviceId: target.id });
    expect(activated.data.device.is_active).toBe(true);
    expect((await admin.call('GET', '/api/admin/devices?active=false')).data.total).toBe(0);
    const audit = await operatorActions();
    expect(audit.slice(-2)).toEqual([
      { kind: 'device.suspended', target_id: target.id },
      { kind: 'device.activated', target_id: target.id },
    ]);
  });

  it('revoke_keys erases the keys (audited); the config is gone until Request key gives a new one', async () => {
    const target = bobDevices[2]!;
    const revoked = await admin.call('POST', '/api/admin-device', { action: 'revoke_keys', deviceId: target.id });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.data.device).toMatchObject({ id: target.id, has_keys: false, is_active: true });
    expect(await deviceRow(target.id)).toMatchObject({ public_key: null, private_key_sealed: null });
    expect((await operatorActions()).at(-1)).toEqual({ kind: 'device.keys_revoked', target_id: target.id });
    // The config cannot be downloaded any more; its person asks for a new key.
    const config = await bob.call('GET', `/api/device/${target.id}/config`);
    expect(config.statusCode).toBe(409);
    const rotated = await bob.call('POST', `/api/devices/${target.id}/key`, {});
    expect(rotated.statusCode).toBe(200);
    expect(rotated.data.device.public_key).not.toBe(target.public_key);
    const listed = await admin.call('GET', '/api/admin/devices?q=Bob%20tablet');
    expect(listed.data.rows[0]).toMatchObject({ id: target.id, has_keys: true });
  });

  it("refuses a bad action with a non-OK answer (the page's 'Action failed') and changes nothing", async () => {
    const target = annDevices[1]!;
    const before = await deviceRow(target.id);
    const auditBefore = (await operatorActions()).length;
    for (const body of [
      { action: 'delete', deviceId: target.id },
      { action: 'suspend' },
      { action: 'suspend', deviceId: target.id, extra: 1 },
    ]) {
      const answer = await admin.call('POST', '/api/admin-device', body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(answer.data.error.code).toBe('validation_failed');
    }
    for (const deviceId of ['not-a-device', '00000000-0000-4000-8000-000000000000']) {
      const answer = await admin.call('POST', '/api/admin-device', { action: 'suspend', deviceId });
      expect(answer.statusCode).toBe(404);
      expect(answer.data.error.code).toBe('not_found');
    }
    // A person who is no platform admin, whatever the spec's header says.
    const refused = await ann.call(
      'POST',
      '/api/admin-device',
      { action: 'suspend', deviceId: target.id },
      { 'x-admin-email': 'ops@quietwire.test' },
    );
    expect(refused.statusCode).toBe(403);
    expect(await deviceRow(target.id)).toEqual(before);
    expect((await operatorActions()).length).toBe(auditBefore);
  });

  it('a drained node takes no new devices and its devices move to the other node of its region; both changes audited', async () => {
    const onA = await provisioningDb()
      .selectFrom('devices')
      .select(['id', 'is_active', 'public_key'])
      .where('node_id', '=', nodes.a.id)
      .execute();
    const peersOnA = onA.filter((d) => d.is_active && d.public_key).length;
    expect(peersOnA).toBeGreaterThan(0);
    const drained = await admin.call('POST', `/api/admin/servers/${nodes.a.id}/drain`, { draining: true });
    expect(drained.statusCode).toBe(200);
    // The answer waits for the moves: the card shows the node empty, keeping the moved peers for their grace.
    expect(drained.data).toMatchObject({
      id: nodes.a.id,
      draining: true,
      peers_placed: 0,
      peers_moved: peersOnA,
      devices_held: 0,
    });
    const moved = await provisioningDb()
      .selectFrom('devices')
      .select(['node_id', 'config_changed_at', 'held_since'])
      .where(
        'id',
        'in',
        onA.map((d) => d.id),
      )
      .execute();
    expect(moved.every((d) => d.node_id === nodes.b.id && d.held_since === null)).toBe(true);
    expect(moved.every((d) => d.config_changed_at !== null)).toBe(true);
    const added = await addDevices(ann, ['After drain 1', 'After drain 2']);
    expect(added.map((d) => d.node.id)).toEqual([nodes.b.id, nodes.b.id]);
    const reopened = await admin.call('POST', `/api/admin/servers/${nodes.a.id}/drain`, { draining: false });
    expect(reopened.data).toMatchObject({ draining: false, peers_placed: 0 });
    expect((await operatorActions()).slice(-2)).toEqual([
      { kind: 'node.drained', target_id: nodes.a.id },
      { kind: 'node.undrained', target_id: nodes.a.id },
    ]);
    const details = await provisioningDb()
      .selectFrom('operator_actions')
      .select('details')
      .where('kind', '=', 'node.drained')
      .executeTakeFirstOrThrow();
    expect(details.details).toMatchObject({ changed: true, name: 'fleet-a', moved: onA.length, held: 0 });
    const unknown = await admin.call('POST', '/api/admin/servers/00000000-0000-4000-8000-000000000000/drain', {
      draining: true,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('the gateway refuses anyone but a platform admin before asking', async () => {
    for (const url of [
      '/api/admin/overview',
      '/api/admin/devices',
      '/api/admin/telemetry',
      '/api/admin/servers',
      `/api/admin/servers/${nodes.a.id}/history`,
    ]) {
      expect((await ann.call('GET', url)).statusCode, url).toBe(403);
      expect((await new Client(stack.app).call('GET', url)).statusCode, url).toBe(401);
    }
  });

  it('each service checks the admin flag again: every console RPC refuses a caller assertion without it', async () => {
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    const person = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true });
    const rpc = new RpcClient(await stack.connectAdmin());
    const asks: Array<[RpcContract, unknown]> = [
      [adminDevicesRpc, {}],
      [adminDeviceCountRpc, {}],
      [adminDeviceActionRpc, { action: 'suspend', deviceId: annDevices[3]!.id }],
      [adminServersRpc, {}],
      [adminDrainNodeRpc, { node_id: nodes.a.id, draining: true }],
      [adminDeviceNamesRpc, { device_ids: [annDevices[3]!.id] }],
      [adminOperatorActionsRpc, {}],
      [adminTrafficRpc, {}],
      [adminLatestRpc, {}],
      [adminNodeStatsRpc, { node_ids: [nodes.a.id] }],
      [adminServerHistoryRpc, { node_id: nodes.a.id }],
      [adminPeopleCountsRpc, {}],
      [adminDirectoryRpc, { user_ids: [], org_ids: [] }],
      [adminFindUsersRpc, { q: 'ann', limit: 10 }],
    ];
    for (const [contract, data] of asks) {
      await expect(rpc.request(contract, data as never, person), contract.subject).rejects.toMatchObject({
        code: 'forbidden',
      });
      await expect(rpc.request(contract, data as never), contract.subject).rejects.toMatchObject({
        code: 'not_signed_in',
      });
    }
    expect((await deviceRow(annDevices[3]!.id)).is_active).toBe(true);
    const node = await provisioningDb()
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', nodes.a.id)
      .executeTakeFirstOrThrow();
    expect(node.draining).toBe(false);
  });

  it("lists the operators' fleet actions newest first, with who did them", async () => {
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    const adminId = (await admin.call('GET', '/api/me')).data.user.id;
    const operator = sign({ userId: adminId, accountType: 'personal', isAdmin: true, emailVerified: true });
    const answer = await new RpcClient(stack.bus).request(adminOperatorActionsRpc, { per_page: 3 }, operator);
    expect(answer.total).toBe((await operatorActions()).length);
    expect(answer.rows.map((r) => r.kind)).toEqual(['node.undrained', 'node.drained', 'device.keys_revoked']);
    expect(answer.rows.every((r) => r.actor_id === adminId)).toBe(true);
    expect(answer.rows[2]).toMatchObject({
      target_kind: 'device',
      target_id: bobDevices[2]!.id,
      details: { changed: true },
    });
  });

  it('a search matching more people than are searched by owner says so, and a narrow one does not', async () => {
    const identity = stack.services.identity!.db;
    await sql`insert into users (id, email, password_hash, email_verified_at, created_at)
      select gen_random_uuid(), 'wide' || n || '@fleet-wide.test', 'x', now(), now()
        from generate_series(1, ${ownerSearchLimit + 1}::int) n`.execute(identity);
    const wide = await admin.call('GET', '/api/admin/devices?q=fleet-wide.test');
    expect(wide.statusCode).toBe(200);
    expect(wide.data).toMatchObject({ total: 0, owners_limited: true });
    const narrow = await admin.call('GET', '/api/admin/devices?q=wide7@fleet-wide.test');
    expect(narrow.statusCode).toBe(200);
    expect(narrow.data.owners_limited).toBeUndefined();
    const bob = await admin.call('GET', '/api/admin/devices?q=bob.fleet');
    expect(bob.data.owners_limited).toBeUndefined();
    expect(bob.data.total).toBeGreaterThan(0);
  });
});
