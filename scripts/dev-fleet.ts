/**
 * `make dev`'s fleet for real when it can (root, wireguard-go, wg, ip): the namespaces, veth
 * pairs, bridge and wireguard-go interfaces scripts/dev-fleet-plan.ts names, and the demo
 * clients that ping through the tunnel now and then. A second `make dev` removes what the first
 * left and makes it again; `removeDevFleet` takes it all down on exit.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseClientConfig, toWgSetconf } from '@qw/wireguard';
import {
  type DevFleetClient,
  type DevFleetPlan,
  devFleetPlan,
  devNodeAgentEnv,
  nodeTunnelTarget,
} from './dev-fleet-plan.ts';

export type DevFleet =
  | { plan: DevFleetPlan; agents: Array<{ name: string; env: Record<string, string> }> }
  | { skipped: string };

/** The nodes' key files (dev-fleet-plan.ts) and, for a moment, a demo client's config. */
const fleetFolder = 'var/dev-fleet';

function has(tool: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const ip = (args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const quietly = (work: () => unknown) => {
  try {
    work();
  } catch {
    // already gone
  }
};

function namespacesOf(plan: DevFleetPlan): string[] {
  return [...plan.nodes.map((n) => n.namespace), ...plan.clients.map((c) => c.namespace)];
}

/**
 * Takes down whatever of the fleet exists: the processes inside its namespaces (the wireguard-go
 * daemons this script started there), the namespaces with their veth pairs, and the bridge.
 */
export function removeDevFleet(plan: DevFleetPlan = devFleetPlan()): void {
  const existing = new Set(
    ip(['netns', 'list'])
      .split('\n')
      .map((line) => line.split(' ')[0]),
  );
  for (const ns of [...namespacesOf(plan), plan.world.namespace]) {
    if (!existing.has(ns)) continue;
    let pids: string[] = [];
    quietly(() => {
      pids = ip(['netns', 'pids', ns]).split('\n').filter(Boolean);
    });
    for (const pid of pids) quietly(() => process.kill(Number(pid), 'SIGTERM'));
    quietly(() => ip(['netns', 'delete', ns]));
  }
  for (const veth of [...plan.nodes, ...plan.clients].map((n) => n.hostVeth))
    quietly(() => ip(['link', 'delete', veth]));
  for (const veth of [plan.world.hostVeth, ...plan.nodes.map((n) => n.uplinkHostVeth)])
    quietly(() => ip(['link', 'delete', veth]));
  quietly(() => ip(['link', 'delete', plan.bridge]));
  quietly(() => ip(['link', 'delete', plan.world.bridge]));
}

function addNamespace(
  plan: DevFleetPlan,
  member: { namespace: string; hostVeth: string; innerVeth: string; underlay: string },
) {
  ip(['netns', 'add', member.namespace]);
  ip(['link', 'add', member.hostVeth, 'type', 'veth', 'peer', 'name', member.innerVeth, 'netns', member.namespace]);
  ip(['link', 'set', member.hostVeth, 'master', plan.bridge, 'up']);
  ip(['-n', member.namespace, 'address', 'add', `${member.underlay}/${plan.prefixLength}`, 'dev', member.innerVeth]);
  ip(['-n', member.namespace, 'link', 'set', member.innerVeth, 'up']);
  ip(['-n', member.namespace, 'link', 'set', 'lo', 'up']);
}

/** Why this machine runs no fleet, or null when it can. */
export function devFleetProblem(env: NodeJS.ProcessEnv): string | null {
  if (env.DEV_NODE === 'off') return 'DEV_NODE=off';
  if (process.getuid?.() !== 0) return 'network namespaces and WireGuard interfaces need root';
  for (const tool of ['ip', 'wg', 'wireguard-go', 'ping'])
    if (!has(tool))
      return `${tool} is missing (apt-get install iproute2 wireguard-tools wireguard-go iputils-ping, or make packages)`;
  return null;
}

/** Makes the fleet's network afresh (what a previous run left is removed first) and answers each node agent's environment. */
export function prepareDevFleet(env: NodeJS.ProcessEnv, plan: DevFleetPlan = devFleetPlan()): DevFleet {
  const problem = devFleetProblem(env);
  if (problem) return { skipped: problem };
  removeDevFleet(plan);
  try {
    mkdirSync(fleetFolder, { recursive: true, mode: 0o700 });
    ip(['link', 'add', plan.bridge, 'type', 'bridge']);
    ip(['address', 'add', `${plan.hostAddress}/${plan.prefixLength}`, 'dev', plan.bridge]);
    ip(['link', 'set', plan.bridge, 'up']);
    // "The world": its own bridge (no host address on it: the host is not reachable from there) and namespace.
    const { world } = plan;
    ip(['link', 'add', world.bridge, 'type', 'bridge']);
    ip(['link', 'set', world.bridge, 'up']);
    ip(['netns', 'add', world.namespace]);
    ip(['link', 'add', world.hostVeth, 'type', 'veth', 'peer', 'name', world.innerVeth, 'netns', world.namespace]);
    ip(['link', 'set', world.hostVeth, 'master', world.bridge, 'up']);
    ip(['-n', world.namespace, 'address', 'add', `${world.address}/24`, 'dev', world.innerVeth]);
    ip(['-n', world.namespace, 'link', 'set', world.innerVeth, 'up']);
    ip(['-n', world.namespace, 'link', 'set', 'lo', 'up']);
    for (const node of plan.nodes) {
      addNamespace(plan, node);
      // Its uplink, with its default route through the world (the agent NATs its devices out of it).
      ip([
        'link',
        'add',
        node.uplinkHostVeth,
        'type',
        'veth',
        'peer',
        'name',
        node.uplinkVeth,
        'netns',
        node.namespace,
      ]);
      ip(['link', 'set', node.uplinkHostVeth, 'master', world.bridge, 'up']);
      ip(['-n', node.namespace, 'address', 'add', `${node.uplink}/24`, 'dev', node.uplinkVeth]);
      ip(['-n', node.namespace, 'link', 'set', node.uplinkVeth, 'up']);
      ip(['-n', node.namespace, 'route', 'add', 'default', 'via', world.address, 'dev', node.uplinkVeth]);
      // wireguard-go daemonizes; it lives inside the namespace until its interface is deleted.
      ip(['netns', 'exec', node.namespace, 'wireguard-go', node.iface]);
    }
    for (const client of plan.clients) {
      addNamespace(plan, client);
      ip(['netns', 'exec', client.namespace, 'wireguard-go', client.iface]);
    }
  } catch (error) {
    removeDevFleet(plan);
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { skipped: `its network could not be made (${stderr || (error as Error).message})` };
  }
  return { plan, agents: plan.nodes.map((node) => ({ name: node.name, env: devNodeAgentEnv(node) })) };
}

export type DemoClient = { client: DevFleetClient; target: string };

/**
 * Brings a demo client's interface up with a device's config and routes to its node's subnet and
 * to "the world" (reached only through the tunnel and its node): the machine's own traffic never
 * enters the tunnel.
 */
export function connectDemoClient(client: DevFleetClient, config: string, world?: string): DemoClient {
  const parsed = parseClientConfig(config);
  const ipv4 = parsed.addresses.find((address) => !address.includes(':'));
  if (!ipv4) throw new Error(`the config of ${client.device} has no IPv4 address`);
  const target = nodeTunnelTarget(ipv4);
  const inside = (args: string[]) =>
    execFileSync('ip', ['netns', 'exec', client.namespace, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  // `wg` reads the file by name (stdin from node is a socket it cannot open); it lives only for this call.
  const file = path.join(fleetFolder, `${client.name}.conf`);
  writeFileSync(file, toWgSetconf(config), { mode: 0o600 });
  try {
    inside(['wg', 'setconf', client.iface, file]);
  } finally {
    rmSync(file, { force: true });
  }
  inside(['ip', 'address', 'flush', 'dev', client.iface]);
  inside(['ip', 'address', 'add', ipv4.includes('/') ? ipv4 : `${ipv4}/32`, 'dev', client.iface]);
  inside(['ip', 'link', 'set', 'up', 'dev', client.iface]);
  inside(['ip', 'route', 'replace', target.route, 'dev', client.iface]);
  if (world) inside(['ip', 'route', 'replace', world, 'dev', client.iface]);
  return { client, target: target.address };
}

/**
 * Every few seconds each client pings its node through the tunnel with a payload of varying
 * size, so handshakes and traffic move in the console. Answers the function that stops it.
 */
export function startDemoTraffic(clients: DemoClient[], everyMs = 5000): () => void {
  let round = 0;
  const timer = setInterval(() => {
    round++;
    for (const [i, { client, target }] of clients.entries()) {
      const size = String(64 + ((round * 397 + i * 611) % 1200));
      execFile(
        'ip',
        ['netns', 'exec', client.namespace, 'ping', '-n', '-q', '-c', '3', '-i', '0.3', '-W', '1', '-s', size, target],
        () => undefined,
      );
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
