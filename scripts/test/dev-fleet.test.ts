import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, findProcesses, wireguardLabProblem } from '@qw/testkit';
import { generateKeyPair, renderClientConfig } from '@qw/wireguard';
import { connectDemoClient, prepareDevFleet, removeDevFleet, startDemoTraffic } from '../dev-fleet.ts';
import { devFleetPlan } from '../dev-fleet-plan.ts';
import { enableForwarding, prefixedExec } from '../../services/node-agent/src/forwarding.ts';

const run = promisify(execFile);

/**
 * `make dev`'s fleet network made for real (scripts/dev-fleet.ts), under random names and a
 * random subnet so a running `make dev` is never touched: bridge, namespaces, veth pairs and
 * wireguard-go interfaces; a second start replaces the first; a demo client connects through a
 * real tunnel with a config file and pings; everything is gone afterwards.
 */
const id = randomBytes(2).toString('hex');
const plan = devFleetPlan({
  prefix: `qt${id}`,
  wgPrefix: `w${id}`,
  subnet: `10.232.${1 + (Number.parseInt(id, 16) % 250)}`,
  worldSubnet: `10.234.${1 + (Number.parseInt(id, 16) % 250)}`,
});
const problem = await wireguardLabProblem();
const [europe, asia] = [plan.nodes[1]!, plan.nodes[2]!];

const inside = async (ns: string, args: string[]) => (await run('ip', ['netns', 'exec', ns, ...args])).stdout;
const reaches = (ns: string | null, address: string) =>
  run(ns ? 'ip' : 'ping', [...(ns ? ['netns', 'exec', ns, 'ping'] : []), '-c', '1', '-W', '2', address]).then(
    () => true,
    () => false,
  );
/** The pids of wireguard-go processes driving one of the plan's interfaces. */
const wireguardGoOf = (ifaces: string[]): number[] =>
  findProcesses(({ argv }) => (argv[0] ?? '').endsWith('wireguard-go') && ifaces.includes(argv[1] ?? ''));
const ifaces = [...plan.nodes, ...plan.clients].map((member) => member.iface);

afterAll(() => {
  if (!problem) removeDevFleet(plan);
});

describe.skipIf(problem)("make dev's fleet network", () => {
  it('puts each node and client in its namespace on the bridge; a second start replaces the first', async () => {
    for (let start = 0; start < 2; start++) {
      const fleet = prepareDevFleet({}, plan);
      if (!('agents' in fleet)) throw new Error(fleet.skipped);
      expect(fleet.agents.map((agent) => agent.name)).toEqual(['nyc-1', 'fra-1', 'sgp-1']);
      for (const node of plan.nodes) {
        expect(await reaches(null, node.underlay), `host → ${node.name}`).toBe(true);
        expect(await inside(node.namespace, ['ip', 'link', 'show', node.iface])).toContain(node.iface);
        for (const client of plan.clients)
          expect(await reaches(client.namespace, node.underlay), `${client.name} → ${node.name}`).toBe(true);
      }
      // One wireguard-go per interface: the first start's were taken down with its namespaces.
      await eventually(() => wireguardGoOf(ifaces).length === ifaces.length, 5000);
    }
  });

  it('connects a demo client with a config file through a real tunnel to its node, and its pings move traffic', async () => {
    const server = generateKeyPair();
    const device = generateKeyPair();
    const keyFile = path.join(tmpdir(), `qt-${id}.key`);
    writeFileSync(keyFile, server.privateKey, { mode: 0o600 });
    try {
      await inside(europe.namespace, [
        'wg',
        'set',
        europe.iface,
        'private-key',
        keyFile,
        'listen-port',
        String(europe.listenPort),
        'peer',
        device.publicKey,
        'allowed-ips',
        '10.65.0.7/32',
      ]);
    } finally {
      rmSync(keyFile, { force: true });
    }
    await inside(europe.namespace, ['ip', 'address', 'add', '10.65.0.1/16', 'dev', europe.iface]);
    await inside(europe.namespace, ['ip', 'link', 'set', 'up', 'dev', europe.iface]);
    const config = renderClientConfig({
      deviceName: plan.clients[0]!.device,
      privateKey: device.privateKey,
      addresses: ['10.65.0.7/32'],
      dns: [],
      serverPublicKey: server.publicKey,
      endpoint: europe.endpoint,
      allowedIps: ['0.0.0.0/0', '::/0'],
      persistentKeepalive: 25,
    });
    // Before the client has a route into the tunnel for it, "the world" is out of its reach.
    expect(await reaches(plan.clients[0]!.namespace, plan.world.address)).toBe(false);
    const client = connectDemoClient(plan.clients[0]!, config, plan.world.subnet);
    expect(client.target).toBe('10.65.0.1');
    // Only the node's subnet goes through the tunnel; the other node stays reachable on the underlay.
    expect(await inside(client.client.namespace, ['ip', 'route', 'show', 'dev', client.client.iface])).toContain(
      '10.65.0.0/16',
    );
    expect(await reaches(client.client.namespace, asia.underlay)).toBe(true);
    const received = async () =>
      Number((await inside(europe.namespace, ['wg', 'show', europe.iface, 'transfer'])).split('\t')[1] ?? 0);
    const stop = startDemoTraffic([client], 300);
    try {
      const before = await eventually(async () => (await received()) > 0 && (await received()), 15_000);
      await eventually(async () => (await received()) > before, 15_000);
    } finally {
      stop();
    }
    // The world beyond the node: nothing gets there until the node forwards and NATs (the agent's
    // own module, as the agent runs it with NODE_FORWARDING on); the world has no route back to the
    // tunnel network, so an answer proves the node's uplink address was the source.
    expect(await reaches(client.client.namespace, plan.world.address)).toBe(false);
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const forwarding = await enableForwarding(
      prefixedExec(`ip netns exec ${europe.namespace}`),
      {
        iface: europe.iface,
        ipv4Cidr: '10.65.0.0/16',
        ipv6Cidr: 'fd7a:5157:7769::/48',
        egressInterface: europe.uplinkVeth,
      },
      quiet,
    );
    expect(forwarding.ipv4).toBe(true);
    expect(await reaches(client.client.namespace, plan.world.address)).toBe(true);
    expect(await inside(plan.world.namespace, ['ip', 'route'])).not.toContain('10.65.');
    const handshake = (await inside(europe.namespace, ['wg', 'show', europe.iface, 'latest-handshakes'])).split(
      '\t',
    )[1];
    expect(Number(handshake)).toBeGreaterThan(0);
  });

  it('takes it all down: no namespace, veth, bridge or wireguard-go of the fleet is left', async () => {
    removeDevFleet(plan);
    const namespaces = (await run('ip', ['netns', 'list'])).stdout;
    for (const member of [...plan.nodes, ...plan.clients]) expect(namespaces).not.toContain(member.namespace);
    expect(namespaces).not.toContain(plan.world.namespace);
    const links = (await run('ip', ['-br', 'link'])).stdout;
    for (const name of [
      plan.bridge,
      plan.world.bridge,
      plan.world.hostVeth,
      ...plan.nodes.map((n) => n.hostVeth),
      ...plan.nodes.map((n) => n.uplinkHostVeth),
      ...plan.clients.map((c) => c.hostVeth),
    ])
      expect(links).not.toContain(name);
    await eventually(() => wireguardGoOf(ifaces).length === 0, 5000);
  });
});
