import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerNodeRpc, type AdminServer } from '@qw/contracts';
import { eventually, keepReporting, wireguardLabProblem } from '@qw/testkit';
import { generateKeyPair, parseClientConfig, toWgSetconf } from '@qw/wireguard';
import { LabNode } from './support/nodes.ts';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';

/**
 * Draining a server moves its devices (issue #23), on real WireGuard: two node agents of one
 * region in network namespaces; 50 devices on A move to B within 30 s of the drain, B carries
 * them all and A only the peers it keeps for their grace; real clients download their new
 * configurations and connect through B. With no room left in the region the devices are held,
 * still served where they are, until a node with room comes up.
 */
const problem = await wireguardLabProblem();
if (problem) console.info(`fleet-drain-tunnel: skipped because ${problem}`);

const deviceCount = 50;
let stack: Stack;
let a: LabNode;
let b: LabNode;
let admin: Client;
let dana: Client;
let eli: Client;
const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
const devices: Array<{ id: string; public_key: string }> = [];

const provisioningDb = () => stack.services.provisioning!.db;

async function drain(node: string, draining: boolean): Promise<AdminServer> {
  const answer = await admin.call('POST', `/api/admin/servers/${node}/drain`, { draining });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.data;
}

async function card(node: string): Promise<AdminServer> {
  const answer = await admin.call('GET', '/api/admin/servers');
  return (answer.data.servers as AdminServer[]).find((s) => s.id === node)!;
}

/** How many of the devices each node holds now, by node id. */
async function placement(): Promise<Map<string | null, number>> {
  const rows = await provisioningDb()
    .selectFrom('devices')
    .select(['node_id', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('node_id')
    .execute();
  return new Map(rows.map((row) => [row.node_id, Number(row.n)]));
}

/** Brings the lab's client up with a config downloaded now; answers the node's own tunnel address to ping. */
async function connectThrough(node: LabNode, config: string): Promise<string> {
  const ipv4 = parseClientConfig(config).addresses.find((address) => !address.includes(':'))!;
  const [o1, o2] = ipv4.split('.');
  // A node's tunnel address is the first of its /16 (nodeSubnets).
  await node.lab.connectClient(toWgSetconf(config), ipv4, `${o1}.${o2}.0.0/16`);
  return `${o1}.${o2}.0.1`;
}

describe.skipIf(problem !== null)('draining a server on real WireGuard', () => {
  beforeAll(async () => {
    stack = await startStack({
      label: 'draintunnel',
      adminEmails: ['ops@quietwire.test'],
      // Held devices are retried every second here (15 s in production).
      extra: (url, mail) =>
        deviceServices(url, mail).map((service) =>
          service.name === 'provisioning' ? { ...service, taskPeriods: { 'move-drained-devices': 1_000 } } : service,
        ),
    });
    a = await LabNode.start(stack, 'drain-a', { NODE_CITY: 'Frankfurt', NODE_IP: '203.0.113.61' });
    b = await LabNode.start(stack, 'drain-b', { NODE_CITY: 'Amsterdam', NODE_IP: '203.0.113.62' });
    admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.91');
    dana = await customerWithPlan(stack, 'dana@example.com');
    eli = await customerWithPlan(stack, 'eli@example.com');
    const servers = (await admin.call('GET', '/api/admin/servers')).data.servers as AdminServer[];
    ids.a = servers.find((s) => s.name === 'drain-a')!.id;
    ids.b = servers.find((s) => s.name === 'drain-b')!.id;
    // B takes no devices yet: all 50 are placed on A.
    await drain(ids.b, true);
    // Two people (a person adds at most 30 devices an hour).
    for (const person of [dana, eli]) {
      for (let i = 0; i < deviceCount / 2; i++) {
        const added = await person.call('POST', '/api/devices', { name: `Device ${i + 1}`, platform: 'linux' });
        expect(added.statusCode, added.body).toBe(201);
        devices.push(added.data.device);
      }
    }
    expect(await placement()).toEqual(new Map([[ids.a, deviceCount]]));
    await eventually(async () => (await a.peers()).length === deviceCount, 20_000, 200);
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await stack?.stop();
  });

  it('moves all 50 devices from a drained server to the other server of its region within 30 s', async () => {
    await drain(ids.b, false);
    const started = Date.now();
    const drained = await drain(ids.a, true);
    await eventually(async () => (await placement()).get(ids.b) === deviceCount, 30_000, 100);
    const keys = devices.map((d) => d.public_key).sort();
    await eventually(async () => (await b.peers()).sort().join() === keys.join(), 30_000, 100);
    const elapsed = Date.now() - started;
    console.info(`fleet-drain-tunnel: ${deviceCount} devices moved and on the new node in ${elapsed} ms`);
    expect(elapsed).toBeLessThan(30_000);
    expect(drained).toMatchObject({ draining: true, devices_held: 0 });
    // A keeps each moved peer (the same key at its old address) for the grace, and nothing else.
    expect(await card(ids.a)).toMatchObject({ peers_placed: 0, peers_moved: deviceCount, devices_held: 0 });
    expect(await card(ids.b)).toMatchObject({ peers_placed: deviceCount, draining: false });
    expect((await a.peers()).sort()).toEqual(keys);
    const moved = await provisioningDb()
      .selectFrom('operator_actions')
      .select('details')
      .where('kind', '=', 'node.drained')
      .where('target_id', '=', ids.a)
      .executeTakeFirstOrThrow();
    expect(moved.details).toMatchObject({ moved: deviceCount, held: 0 });
    // Each device's person is mailed to download again (queued with the move; sent once their address is confirmed).
    const mails = await provisioningDb()
      .selectFrom('mail_jobs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('kind', '=', 'device-moved')
      .executeTakeFirstOrThrow();
    expect(Number(mails.n)).toBe(deviceCount);
  }, 60_000);

  it('real clients download their new configurations and connect through the new server', async () => {
    for (const device of devices.slice(0, 3)) {
      const listed = (await dana.call('GET', '/api/devices')).data.devices.find(
        (d: { id: string }) => d.id === device.id,
      );
      expect(listed.config_changed_at).not.toBeNull();
      expect(listed.node).toMatchObject({ id: ids.b, city: 'Amsterdam', reachable: true });
      const config = await dana.call('GET', `/api/device/${device.id}/config`);
      expect(config.statusCode).toBe(200);
      expect(config.body).toContain(`Endpoint = ${b.lab.nodeUnderlay}:51820`);
      const target = await connectThrough(b, config.body);
      expect(await eventually(() => b.lab.ping(target), 20_000, 100)).toBe(true);
      const after = (await dana.call('GET', '/api/devices')).data.devices.find(
        (d: { id: string }) => d.id === device.id,
      );
      expect(after.config_changed_at).toBeNull();
    }
  }, 60_000);

  it('holds the devices when no server of the region has room, and moves them once one comes up', async () => {
    // A is drained too: draining B leaves the region without room.
    const held = await drain(ids.b, true);
    if (held.devices_held !== deviceCount) {
      // Seen once (a clean-clone CI run, 2026-11-30): the answer, in about a second, held none
      // and the cause is not known. Say what the pass recorded in its audit row, and the card a
      // moment later, before failing.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const audit = await provisioningDb()
        .selectFrom('operator_actions')
        .select(['at', 'details'])
        .where('kind', '=', 'node.drained')
        .where('target_id', '=', ids.b)
        .orderBy('at')
        .execute();
      // The card's counts only: the rest of it (address, metrics) says nothing about the hold.
      const counts = ({ draining, peers_placed, peers_moved, devices_held }: AdminServer) =>
        JSON.stringify({ draining, peers_placed, peers_moved, devices_held });
      console.warn(
        `fleet-drain-tunnel: the drain answered ${counts(held)}; its audit rows ${JSON.stringify(audit)}; 2 s later the card says ${counts(await card(ids.b))}`,
      );
    }
    expect(held).toMatchObject({ draining: true, peers_placed: deviceCount, devices_held: deviceCount });
    const listed = (await dana.call('GET', '/api/devices')).data.devices as Array<{ held_since: string | null }>;
    expect(listed).toHaveLength(deviceCount / 2);
    expect(listed.every((d) => d.held_since !== null)).toBe(true);
    // Held devices are still served where they are.
    expect((await b.peers()).length).toBeGreaterThanOrEqual(deviceCount);
    // Opened again, B holds them no more; drained again, they wait again.
    expect(await drain(ids.b, false)).toMatchObject({ devices_held: 0 });
    expect(await drain(ids.b, true)).toMatchObject({ devices_held: deviceCount });

    // A new server of the region comes up (registers and reports): the retry moves them there.
    const node = await stack.connectNode('drain-c');
    const registered = await node.rpc.request(
      registerNodeRpc,
      {
        region: 'europe',
        city: 'Paris',
        endpoint: '198.51.100.33:51820',
        public_key: generateKeyPair().publicKey,
        ip: '198.51.100.33',
        tags: [],
      },
      undefined,
      { params: { node: 'drain-c' } },
    );
    keepReporting(node.bus, 'drain-c');
    ids.c = registered.node_id;
    const opened = Date.now();
    await eventually(async () => (await placement()).get(ids.c) === deviceCount, 30_000, 200);
    expect(Date.now() - opened).toBeLessThan(30_000);
    const after = (await eli.call('GET', '/api/devices')).data.devices as Array<{ held_since: string | null }>;
    expect(after).toHaveLength(deviceCount / 2);
    expect(after.every((d) => d.held_since === null)).toBe(true);
    expect(await card(ids.b)).toMatchObject({ peers_placed: 0, devices_held: 0 });
  }, 60_000);
});
