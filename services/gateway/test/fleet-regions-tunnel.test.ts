import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeConsumerName } from '@qw/contracts';
import { eventually, wireguardLabProblem } from '@qw/testkit';
import { parseClientConfig } from '@qw/wireguard';
import { LabNode } from './support/nodes.ts';
import { type Client, confirmEmail, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';

const problem = await wireguardLabProblem();
if (problem) console.info(`fleet-regions-tunnel: skipped because ${problem}`);

/**
 * Regions on real WireGuard (issue #23): three node agents, each in its own pair of network
 * namespaces, in two regions: Frankfurt (Europe), Amsterdam (Europe, tagged gaming) and Toronto
 * (North America). Each node carries only its own peers and its credentials read nothing of the
 * others'; a Gaming device lands on the gaming node; a device moved from Europe to North America
 * connects through Toronto with its newly downloaded config, and Frankfurt drops its peer once
 * the device shook hands through Toronto.
 */
const suffix = Math.random().toString(16).slice(2, 8);
const names = { frankfurt: `fra-${suffix}`, amsterdam: `ams-${suffix}`, toronto: `tor-${suffix}` };
let stack: Stack;
const nodes: Partial<Record<keyof typeof names, LabNode>> = {};
let ann: Client;
let gamer: Client;

const device = async (client: Client, id: string) =>
  (await client.call('GET', '/api/devices')).data.devices.find((d: { id: string }) => d.id === id);

describe.skipIf(problem !== null)('regions, placement and moving a device on real WireGuard', () => {
  beforeAll(async () => {
    stack = await startStack({ label: 'regions', extra: deviceServices });
    const settings = {
      frankfurt: { NODE_REGION: 'europe', NODE_CITY: 'Frankfurt', NODE_IP: '203.0.113.81' },
      amsterdam: { NODE_REGION: 'europe', NODE_CITY: 'Amsterdam', NODE_IP: '203.0.113.82', NODE_TAGS: 'gaming' },
      toronto: { NODE_REGION: 'north-america', NODE_CITY: 'Toronto', NODE_IP: '203.0.113.83' },
    };
    for (const key of ['frankfurt', 'amsterdam', 'toronto'] as const)
      nodes[key] = await LabNode.start(stack, names[key], settings[key]);
    await customerWithPlan(stack, 'ann@regions.test');
    ann = await confirmEmail(stack, 'ann@regions.test', 'correct horse battery');
    gamer = await customerWithPlan(stack, 'gamer@regions.test', 'gaming');
  }, 90_000);

  afterAll(async () => {
    for (const node of Object.values(nodes)) await node?.stop();
    await stack?.stop();
  });

  let laptop: { id: string; public_key: string };
  let rig: { id: string; public_key: string };
  let phone: { id: string; public_key: string };

  it('refuses a region or country it does not know, another person’s device, and a region without room', async () => {
    const badRegion = await ann.call('POST', '/api/devices', { name: 'Mars', platform: 'linux', region: 'mars' });
    expect(badRegion.statusCode).toBe(400);
    const badCountry = await ann.call('POST', '/api/devices', { name: 'Nowhere', platform: 'linux', country: 'QQ' });
    expect([badCountry.statusCode, badCountry.data.error.code]).toEqual([422, 'unprocessable']);
    expect(badCountry.data.error.message).toContain('QQ');
    // No server in Asia: refused by the region's name; nothing is added.
    const asia = await ann.call('POST', '/api/devices', { name: 'Tokyo', platform: 'linux', region: 'asia' });
    expect([asia.statusCode, asia.data.error.code]).toEqual([409, 'region_full']);
    expect(asia.data.error.message).toBe('No server in Asia has room right now. Choose another region or Automatic.');
    expect((await ann.call('GET', '/api/devices')).data.devices).toEqual([]);

    laptop = await deviceAdded(ann, { name: 'Laptop', platform: 'linux', region: 'europe', country: 'de' });
    expect((await ann.call('POST', `/api/devices/${laptop.id}/region`, { region: 'mars' })).statusCode).toBe(400);
    const unknown = await ann.call('POST', `/api/devices/${laptop.id}/region`, { region: 'auto', country: 'QQ' });
    expect(unknown.statusCode).toBe(422);
    const full = await ann.call('POST', `/api/devices/${laptop.id}/region`, { region: 'asia' });
    expect([full.statusCode, full.data.error.code]).toEqual([409, 'region_full']);
    const theirs = await gamer.call('POST', `/api/devices/${laptop.id}/region`, { region: 'north-america' });
    expect([theirs.statusCode, theirs.data.error.code]).toEqual([404, 'not_found']);
    expect(await device(ann, laptop.id)).toMatchObject({ region_choice: 'europe', country: 'DE' });
  }, 30_000);

  it('places by region and plan: each node carries only its own peers', async () => {
    expect(await device(ann, laptop.id)).toMatchObject({ node: { name: names.frankfurt, city: 'Frankfurt' } });
    rig = await deviceAdded(gamer, { name: 'Rig', platform: 'windows' });
    expect((await device(gamer, rig.id)).node).toMatchObject({ name: names.amsterdam, region: 'europe' });
    phone = await deviceAdded(ann, { name: 'Phone', platform: 'android', region: 'north-america' });
    expect((await device(ann, phone.id)).node).toMatchObject({ name: names.toronto, city: 'Toronto' });

    const own = {
      frankfurt: [laptop.public_key],
      amsterdam: [rig.public_key],
      toronto: [phone.public_key],
    };
    for (const key of ['frankfurt', 'amsterdam', 'toronto'] as const) {
      await eventually(async () => (await nodes[key]!.peers()).length === own[key].length, 10_000);
      expect((await nodes[key]!.peers()).sort()).toEqual(own[key]);
    }
  }, 30_000);

  it('a node’s credentials cannot read another node’s peer changes', async () => {
    const { bus } = await stack.connectNode(names.frankfurt);
    const stream = bus.ns.stream('provisioning');
    await expect(bus.jsm.consumers.info(stream, nodeConsumerName(names.toronto))).rejects.toThrow();
    await expect(
      (async () => {
        const consumer = await bus.js.consumers.get(stream, nodeConsumerName(names.toronto));
        await consumer.next({ expires: 1000 });
      })(),
    ).rejects.toThrow();
    const errors: string[] = [];
    void (async () => {
      for await (const status of bus.nc.status())
        if (status.type === 'error') errors.push(String((status as { error?: Error }).error?.message));
    })();
    bus.nc.subscribe(bus.ns.subject(`provisioning.peers.${names.toronto}`));
    await bus.nc.flush().catch(() => undefined);
    await eventually(() => errors.length > 0, 3000, 50);
    expect(errors[0]).toMatch(/Permissions Violation for Subscription/);
    // Its own durable it may read.
    await expect(bus.jsm.consumers.info(stream, nodeConsumerName(names.frankfurt))).resolves.toMatchObject({
      config: { filter_subject: bus.ns.subject(`provisioning.peers.${names.frankfurt}`) },
    });
  }, 20_000);

  it('moves a device from Europe to North America: new config through Toronto, and Frankfurt drops the old peer once it is live', async () => {
    const frankfurt = nodes.frankfurt!;
    const toronto = nodes.toronto!;
    const oldConfig = (await ann.call('GET', `/api/device/${laptop.id}/config`)).body;
    await frankfurt.connect(oldConfig);
    expect(await eventually(() => frankfurt.ping(1), 15_000, 100)).toBe(true);

    const moved = await ann.call('POST', `/api/devices/${laptop.id}/region`, { region: 'north-america' });
    expect(moved.statusCode).toBe(200);
    expect(moved.data).toMatchObject({
      moved: true,
      device: { region_choice: 'north-america', public_key: laptop.public_key, node: { name: names.toronto } },
    });
    expect(moved.data.device.config_changed_at).toEqual(expect.any(String));
    const mail = await stack.smtp.waitFor((m) => m.subject?.startsWith('New server for Laptop') ?? false, 15_000);
    expect(mail.text).toContain(
      'Laptop now connects through Toronto, North America: download its configuration again.',
    );

    // Until the new peer is live the old one stays, and the old config still works.
    await eventually(async () => (await toronto.peers()).includes(laptop.public_key), 10_000);
    expect(await frankfurt.peers()).toContain(laptop.public_key);
    expect(await frankfurt.ping(2)).toBe(true);

    const download = await ann.call('GET', `/api/device/${laptop.id}/config`);
    const newConfig = download.body as string;
    expect(parseClientConfig(newConfig).endpoint).not.toBe(parseClientConfig(oldConfig).endpoint);
    expect(parseClientConfig(newConfig).privateKey).toBe(parseClientConfig(oldConfig).privateKey);
    expect(mail.attachments.find((a) => a.filename?.endsWith('.conf'))?.content.toString('utf8')).toBe(newConfig);
    expect((await device(ann, laptop.id)).config_changed_at).toBeNull();

    await toronto.connect(newConfig);
    expect(await eventually(() => toronto.ping(1), 15_000, 100)).toBe(true);
    // Telemetry sees the handshake through Toronto; provisioning then tells Frankfurt to drop the peer.
    const dropped = await eventually(async () => !(await frankfurt.peers()).includes(laptop.public_key), 20_000, 200)
      .then(() => true)
      .catch(() => false);
    if (!dropped) console.error(`Frankfurt kept the moved peer; what each side held:\n${await moveState(laptop.id)}`);
    expect(dropped).toBe(true);
    expect(await frankfurt.ping(2)).toBe(false);
    expect(await toronto.ping(2)).toBe(true);
    expect((await toronto.peers()).sort()).toEqual([laptop.public_key, phone.public_key].sort());
  }, 60_000);
});

/**
 * What the services and nodes held for a moved device, printed when Frankfurt keeps its old peer
 * (a failure seen once in a full run and never alone): which link of handshake → telemetry →
 * provisioning → Frankfurt did not move.
 */
async function moveState(deviceId: string): Promise<string> {
  const client = new pg.Client({ connectionString: stack.database.adminUrl });
  await client.connect();
  const lines: string[] = [];
  try {
    for (const query of [
      'select node_id, public_key from telemetry.device_keys where device_id = $1',
      'select node_id, ts, latest_handshake from telemetry.device_latest_telemetry where device_id = $1',
      'select node_id, latest_handshake, received_at from telemetry.early_handshakes',
      'select node_id, expires_at from provisioning.moved_peers where device_id = $1',
      'select node_id, latest_handshake from provisioning.devices where id = $1',
      'select id, name from provisioning.nodes',
    ]) {
      const rows = await client.query(query, query.includes('$1') ? [deviceId] : []).then(
        (result) => JSON.stringify(result.rows),
        (error: Error) => error.message,
      );
      lines.push(`${query}: ${rows}`);
    }
  } finally {
    await client.end();
  }
  const admin = await stack.connectAdmin();
  for await (const stream of admin.jsm.streams.list())
    for await (const consumer of admin.jsm.consumers.list(stream.config.name))
      if (consumer.num_pending + consumer.num_ack_pending + consumer.num_redelivered > 0)
        lines.push(
          `${consumer.name}: ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacked, ${consumer.num_redelivered} redelivered`,
        );
  const handshakes = async (node: LabNode) => JSON.stringify([...(await node.agent.host.latestHandshakes())]);
  lines.push(
    `Toronto's handshakes ${await handshakes(nodes.toronto!)}, Frankfurt's ${await handshakes(nodes.frankfurt!)}`,
  );
  lines.push(`now ${Math.floor(Date.now() / 1000)}`);
  return lines.join('\n');
}
