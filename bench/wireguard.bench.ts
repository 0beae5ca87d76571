/**
 * The WireGuard path on real wireguard-go (network namespaces), issue #24:
 * - add device → peer live on a node that already holds 10,000 peers, over 500 devices: from the
 *   201 of `POST /api/devices` to the moment the interface took that key (UAPI answered, or `wg
 *   set` returned: the agent's own timestamp, `onPeersApplied`), beside one bare `wg set` of one
 *   peer on the same interface, with where the time went (stored, delivered, key fetched, applied);
 * - a node agent started on a fresh interface reconciling to 10,000 and 50,000 peers (asking the
 *   desired set, planning, applying), in its own process as on a server, beside `wg setconf` of the
 *   same peer set onto another fresh interface; the agent's resident memory at 50,000;
 * - first handshake → connected in the device list (p95 < 2 s), a real client bringing new devices up;
 * - one reading of the handshake watch at 10,000 peers (UAPI `get=1` where there is a socket),
 *   beside `wg show latest-handshakes` of the same interface.
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createWireGuardLab, spawnTsProcess, wireguardLabProblem, type WireGuardLab } from '@qw/testkit';
import { deviceIpv6For, generateKeyPair, intToIpv4, ipv4ToInt, parseClientConfig, toWgSetconf } from '@qw/wireguard';
import { customerWithPlan, deviceServices } from '../services/gateway/test/support/products.ts';
import { startStack, type Client, type Stack } from '../services/gateway/test/support/stack.ts';
import { median, type Bench, type BenchFigure, type BenchSize } from './lib/figures.ts';
import { BenchSkipped } from './lib/runner.ts';
import type { ReconcileFigures } from '../services/node-agent/src/agent.ts';

const run = promisify(execFile);

type Sizes = {
  heldPeers: number;
  devices: number;
  warmUp: number;
  /** First handshakes timed to "connected" in the device list. */
  connects: number;
  reconcilePeers: number[];
  rounds: number;
};
const sizes: Record<BenchSize, Sizes> = {
  full: { heldPeers: 10_000, devices: 500, warmUp: 20, connects: 20, reconcilePeers: [10_000, 50_000], rounds: 3 },
  tiny: { heldPeers: 200, devices: 10, warmUp: 2, connects: 2, reconcilePeers: [300], rounds: 1 },
};

/**
 * BENCH_WG_HELD, BENCH_WG_DEVICES, BENCH_WG_RECONCILE (e.g. "10000,50000") and BENCH_WG_ROUNDS
 * override a size; BENCH_WG_PROFILE=<dir> has each agent process (the following one and those
 * reconciling) write a CPU profile there.
 */
function sized(base: Sizes): Sizes {
  const env = process.env;
  return {
    ...base,
    heldPeers: Number(env.BENCH_WG_HELD ?? base.heldPeers),
    devices: Number(env.BENCH_WG_DEVICES ?? base.devices),
    reconcilePeers: env.BENCH_WG_RECONCILE ? env.BENCH_WG_RECONCILE.split(',').map(Number) : base.reconcilePeers,
    rounds: Number(env.BENCH_WG_ROUNDS ?? base.rounds),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** `count` devices of nobody on `nodeName`, straight into provisioning's table, as a full node holds them. */
async function seedPeers(stack: Stack, nodeName: string, from: number, count: number): Promise<void> {
  const db = stack.services.provisioning!.db;
  const node = await db.selectFrom('nodes').selectAll().where('name', '=', nodeName).executeTakeFirstOrThrow();
  const base = ipv4ToInt(node.ipv4_cidr.split('/')[0]!) + 2 + from;
  const userId = randomUUID();
  for (let i = 0; i < count; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - i) }, (_, j) => {
      const ipv4 = intToIpv4(base + i + j);
      return {
        id: randomUUID(),
        user_id: userId,
        org_id: null,
        name: `peer ${from + i + j}`,
        platform: 'linux',
        public_key: generateKeyPair().publicKey,
        private_key_sealed: null,
        client_keys: true,
        node_id: node.id,
        ipv4,
        ipv6: deviceIpv6For(node.ipv6_cidr, ipv4),
        key_created_at: new Date(),
      };
    });
    await db.insertInto('devices').values(rows).execute();
  }
}

/** The desired set of a node as `wg setconf` reads it (no private key: the interface keeps none). */
async function desiredSetconf(stack: Stack, nodeName: string, port: number): Promise<string> {
  const db = stack.services.provisioning!.db;
  const rows = await db
    .selectFrom('devices')
    .innerJoin('nodes', 'nodes.id', 'devices.node_id')
    .select(['devices.public_key', 'devices.ipv4', 'devices.ipv6'])
    .where('nodes.name', '=', nodeName)
    .where('devices.public_key', 'is not', null)
    .execute();
  const peers = rows.map(
    (row) => `[Peer]\nPublicKey = ${row.public_key}\nAllowedIPs = ${row.ipv4}/32, ${row.ipv6}/128\n`,
  );
  return `[Interface]\nListenPort = ${port}\n\n${peers.join('\n')}`;
}

async function freshInterface(lab: WireGuardLab): Promise<string> {
  const iface = `wgb${randomUUID().slice(0, 8)}`;
  await lab.exec(lab.nodeNs, ['wireguard-go', iface]);
  return iface;
}

async function dropInterface(lab: WireGuardLab, iface: string): Promise<void> {
  await lab.exec(lab.nodeNs, ['ip', 'link', 'delete', iface]).catch(() => undefined);
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

type AgentResult = ReconcileFigures & {
  path: 'uapi' | 'wg';
  applied: number;
  watchMs: number;
  dumpMs: number;
  wgWatchMs: number;
  wgDumpMs: number;
  bareSetMs: number[];
  bareUapiSetMs: number[];
  rssMiB: number;
};

/** Epoch ms of a change's steps in the agent: JetStream stored it, the agent had it, its key fetched, applied. */
type LiveSteps = { applied: number; stored: number; received: number; keyed: number };

/**
 * A node agent in its own process (bench/wireguard-agent.process.ts): its `BENCH` line, and in
 * follow mode the epoch time at which each key went live.
 */
async function agentProcess(env: Record<string, string>, follow: boolean) {
  // BENCH_WG_PROFILE=<dir>: the agent writes a CPU profile there when it stops.
  const profile = process.env.BENCH_WG_PROFILE;
  const child = await spawnTsProcess(
    'bench-agent',
    'bench/wireguard-agent.process.ts',
    { ...env, ...(follow ? { BENCH_MODE: 'follow' } : {}) },
    profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {},
  );
  const live = new Map<string, LiveSteps>();
  const waiters = new Map<string, () => void>();
  let resolveResult: (result: AgentResult) => void = () => undefined;
  let rejectResult: (error: Error) => void = () => undefined;
  const result = new Promise<AgentResult>((resolve, reject) => {
    resolveResult = resolve;
    rejectResult = reject;
  });
  const exited = new Promise<void>((resolve) => child.child.once('exit', () => resolve()));
  const killer = setTimeout(() => child.child.kill('SIGKILL'), 600_000);
  void exited.then(() => {
    clearTimeout(killer);
    rejectResult(new Error(`bench agent exited ${child.child.exitCode}: ${child.output().slice(-2000)}`));
  });
  let buffer = '';
  child.child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('LIVE ')) {
        const [, key, applied, stored, received, keyed] = line.split(' ');
        live.set(key!, {
          applied: Number(applied),
          stored: Number(stored),
          received: Number(received),
          keyed: Number(keyed),
        });
        waiters.get(key!)?.();
      } else if (line.startsWith('BENCH ')) resolveResult(JSON.parse(line.slice('BENCH '.length)) as AgentResult);
    }
  });
  return {
    result,
    exited,
    live,
    /** The epoch ms at which `key` went live (and its steps), waiting up to 10 s for it. */
    async liveAt(key: string): Promise<LiveSteps> {
      if (!live.has(key))
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('peer not live in 10 s')), 10_000);
          waiters.set(key, () => {
            clearTimeout(timer);
            resolve();
          });
        }).finally(() => waiters.delete(key));
      return live.get(key)!;
    },
    async stop(): Promise<void> {
      await child.stop();
    },
  };
}

const epochNow = () => performance.timeOrigin + performance.now();

export async function runWireguardBench(size: BenchSize): Promise<BenchFigure[]> {
  const problem = await wireguardLabProblem();
  if (problem) throw new BenchSkipped(problem);
  const s = sized(sizes[size]);
  const stack = await startStack({ label: 'benchwg', extra: deviceServices });
  const lab = await createWireGuardLab();
  const keyDir = await mkdtemp(path.join(tmpdir(), 'qw-bench-wg-'));
  const agentEnv = async (name: string, iface: string, port: number): Promise<Record<string, string>> => ({
    ...(await stack.testBus.addNode(name)),
    LOG_LEVEL: 'silent',
    NODE_NAME: name,
    NODE_IP: '203.0.113.61',
    NODE_CAPACITY: '100000',
    WG_INTERFACE: iface,
    WG_ENDPOINT: `${lab.nodeUnderlay}:${port}`,
    WG_LISTEN_PORT: String(port),
    // Into the node's network namespace only: the cheapest way there (a server runs `wg` directly).
    WG_COMMAND_PREFIX: `nsenter --net=/var/run/netns/${lab.nodeNs}`,
    NODE_KEY_FILE: path.join(keyDir, `${name}.key`),
    RECONCILE_SECONDS: '3600',
    SAMPLE_SECONDS: '3600',
    HOST_METRICS_SECONDS: '3600',
    HANDSHAKE_WATCH_SECONDS: '1',
  });
  /** Runs an agent once to register its node (placement needs it) and lets it exit. */
  const register = async (name: string, port: number) => {
    const iface = await freshInterface(lab);
    const once = await agentProcess(
      { ...(await agentEnv(name, iface, port)), BENCH_SETTLE_MS: '0', BENCH_BARE_SETS: '0' },
      false,
    );
    await once.result;
    await once.exited;
    await dropInterface(lab, iface);
  };
  let follower: Awaited<ReturnType<typeof agentProcess>> | undefined;
  const figures: BenchFigure[] = [];
  try {
    // 1. A node holding `heldPeers`, its agent in its own process, following the bus.
    await register('bench-wg-1', 51820);
    await seedPeers(stack, 'bench-wg-1', 0, s.heldPeers);
    follower = await agentProcess(await agentEnv('bench-wg-1', lab.nodeIface, 51820), true);
    const atStart = await follower.result;
    if (atStart.applied < s.heldPeers) throw new Error(`node holds ${atStart.applied} peers, not ${s.heldPeers}`);

    // Customers as households have them: each stays within fair use (30 additions an hour).
    const owners: Client[] = [];
    for (let i = 0; i < Math.ceil((s.devices + s.warmUp + s.connects) / 25); i++)
      owners.push(await customerWithPlan(stack, `bench-wg-${i}@example.com`));
    const fromCreated: number[] = [];
    const fromAsked: number[] = [];
    const toStored: number[] = [];
    const toReceived: number[] = [];
    const toKeyed: number[] = [];
    const toApplied: number[] = [];
    let liveBefore201 = 0;
    /** Each measured add's steps from its 201 (ms): to stored, to the agent, key fetched, applied. */
    const tails: Array<{ total: number; steps: number[] }> = [];
    for (let i = 0; i < s.devices + s.warmUp; i++) {
      const owner = owners[i % owners.length]!;
      const asked = epochNow();
      const created = await owner.call('POST', '/api/devices', { name: `device ${i}`, platform: 'linux' });
      const at201 = epochNow();
      if (created.statusCode !== 201) throw new Error(`add device: ${created.statusCode}`);
      const steps = await follower.liveAt(created.data.device.public_key);
      const liveAt = steps.applied;
      if (i < s.warmUp) continue;
      toStored.push(steps.stored - asked);
      toReceived.push(steps.received - steps.stored);
      toKeyed.push(steps.keyed - steps.received);
      toApplied.push(steps.applied - steps.keyed);
      if (liveAt < at201) liveBefore201 += 1;
      fromCreated.push(Math.max(0, liveAt - at201));
      tails.push({
        total: liveAt - at201,
        steps: [
          steps.stored - at201,
          steps.received - steps.stored,
          steps.keyed - steps.received,
          liveAt - steps.keyed,
        ],
      });
      fromAsked.push(liveAt - asked);
    }
    fromCreated.sort((a, b) => a - b);
    fromAsked.sort((a, b) => a - b);
    const bare = [...atStart.bareSetMs].sort((a, b) => a - b);
    const bareUapi = [...atStart.bareUapiSetMs].sort((a, b) => a - b);
    const held = atStart.applied;
    const p50 = (values: number[]) => round1(median(values));
    const where =
      `where the time went (p50 from the request sent): JetStream stored the event ${p50(toStored)} ms (the request, its commit, the outbox relay), ` +
      `to the agent ${p50(toReceived)} ms, its preshared key fetched ${p50(toKeyed)} ms, applied ${p50(toApplied)} ms ` +
      `(p99 of applying: ${round1(
        percentile(
          [...toApplied].sort((a, b) => a - b),
          99,
        ),
      )} ms). Path: ${atStart.path}` +
      (bareUapi.length
        ? `; a bare one-peer UAPI set p50 ${round1(percentile(bareUapi, 50))} ms, p99 ${round1(percentile(bareUapi, 99))} ms`
        : '');
    figures.push(
      {
        figure: `add device (201) → peer live on a node with ${held} peers: p50`,
        value: round1(percentile(fromCreated, 50)),
        unit: 'ms',
        baseline: { label: 'one bare `wg set` of one peer from the agent, p50', value: round1(percentile(bare, 50)) },
        target: { on: 'value', comparison: '<', limit: 10 },
        note: `${s.devices} devices after ${s.warmUp} of warm-up; the end is the agent's timestamp when the interface took the peer (agent in its own process). From the request sent: p50 ${round1(percentile(fromAsked, 50))} ms, p99 ${round1(percentile(fromAsked, 99))} ms; live before the 201 arrived (counted as 0): ${liveBefore201}; ${where}`,
      },
      {
        figure: `add device (201) → peer live on a node with ${held} peers: p99`,
        value: round1(percentile(fromCreated, 99)),
        unit: 'ms',
        baseline: { label: 'one bare `wg set` of one peer from the agent, p99', value: round1(percentile(bare, 99)) },
        target: { on: 'value', comparison: '<', limit: 25 },
        note: `the slowest adds, from the 201 (ms): stored by JetStream (negative: before the 201) / to the agent / key fetched / applied: ${tails
          .sort((a, b) => b.total - a.total)
          .slice(0, Math.max(1, Math.ceil(tails.length / 50)))
          .map((tail) => tail.steps.map(round1).join(' / '))
          .join('; ')}`,
      },
      {
        figure: `handshake watch, one reading at ${held} peers (${atStart.path === 'uapi' ? 'UAPI get=1 streamed, keys and handshakes only' : 'wg show latest-handshakes'}, parse, diff; once a second)`,
        value: round1(atStart.watchMs),
        unit: 'ms',
        baseline: { label: '`wg show latest-handshakes`, parse, diff', value: round1(atStart.wgWatchMs) },
        target: { on: 'value', comparison: '<', limit: 100 },
        note: `medians of 10 readings in the agent process, wall time; read once a second, so value/1000 is the share of one core at most. The sample's whole reading: ${round1(atStart.dumpMs)} ms (${atStart.path}), \`wg show dump\` and its parse ${round1(atStart.wgDumpMs)} ms`,
      },
    );

    // First handshake → connected in GET /api/devices: the lab's client brings each new device up
    // (its config, as downloaded); the start is its first ping answered through the tunnel (the
    // handshake is done by then), the end the list saying connected, read every 50 ms.
    const toConnected: number[] = [];
    for (let i = 0; i < s.connects; i++) {
      const owner = owners[i % owners.length]!;
      const created = await owner.call('POST', '/api/devices', { name: `connect ${i}`, platform: 'linux' });
      if (created.statusCode !== 201) throw new Error(`add device: ${created.statusCode}`);
      const device = created.data.device as { id: string; public_key: string };
      await follower.liveAt(device.public_key);
      const config = (await owner.call('GET', `/api/device/${device.id}/config`)).body as string;
      const ipv4 = parseClientConfig(config)
        .addresses.find((a) => !a.includes(':'))!
        .split('/')[0]!;
      const [a, b] = ipv4.split('.');
      await lab.connectClient(toWgSetconf(config), `${ipv4}/32`, `${a}.${b}.0.0/16`);
      const deadline = Date.now() + 15_000;
      while (!(await lab.ping(`${a}.${b}.0.1`, 1))) if (Date.now() > deadline) throw new Error('tunnel not up');
      const up = performance.now();
      for (;;) {
        const list = await owner.call('GET', '/api/devices');
        const row = list.data.devices.find((d: { id: string }) => d.id === device.id);
        if (row?.is_connected) break;
        if (performance.now() - up > 30_000) throw new Error('not connected in the list within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      toConnected.push(performance.now() - up);
    }
    toConnected.sort((x, y) => x - y);
    figures.push({
      figure: 'first handshake → connected in GET /api/devices: p95',
      value: Math.round(percentile(toConnected, 95)),
      unit: 'ms',
      target: { on: 'value', comparison: '<', limit: 2000 },
      note: `${s.connects} devices brought up by a real client; from its first ping answered to the list saying connected (read every 50 ms); p50 ${Math.round(percentile(toConnected, 50))} ms. The agent's sample is an hour apart: only the handshake watch (every 1 s) can make it`,
    });
    await follower.stop();
    follower = undefined;

    // 2. Reconcile onto a fresh interface, the agent in its own process; `wg setconf` beside it.
    await register('bench-wg-2', 51821);
    let seeded = 0;
    const port = 51821;
    const conf = path.join(keyDir, 'desired.conf');
    for (const peers of s.reconcilePeers) {
      await seedPeers(stack, 'bench-wg-2', seeded, peers - seeded);
      seeded = peers;
      const agentMs: number[] = [];
      const parts: string[] = [];
      const setconfMs: number[] = [];
      let rssMiB = 0;
      for (let round = 0; round < s.rounds; round++) {
        const iface = await freshInterface(lab);
        const once = await agentProcess(await agentEnv('bench-wg-2', iface, port), false);
        const result = await once.result;
        await once.exited;
        await dropInterface(lab, iface);
        if (result.applied !== peers) throw new Error(`reconcile applied ${result.applied} peers, not ${peers}`);
        agentMs.push(result.ms);
        parts.push(`${result.readMs}/${result.askMs}/${result.applyWaitMs}`);
        rssMiB = Math.max(rssMiB, result.rssMiB);

        const baseIface = await freshInterface(lab);
        await writeFile(conf, await desiredSetconf(stack, 'bench-wg-2', port + 1), { mode: 0o600 });
        setconfMs.push(
          await timed(() => run('nsenter', [`--net=/var/run/netns/${lab.nodeNs}`, 'wg', 'setconf', baseIface, conf])),
        );
        await dropInterface(lab, baseIface);
      }
      figures.push({
        figure: `node agent reconciles a fresh interface to ${peers} peers (ask, plan, apply)`,
        value: Math.round(median(agentMs)),
        unit: 'ms',
        baseline: { label: '`wg setconf` of the same peer set', value: Math.round(median(setconfMs)) },
        target: { on: 'value', comparison: '<', limit: peers <= 10_000 ? 1000 : 5000 },
        note: `median of ${s.rounds} round(s), each a new interface and a new agent process; agent path ${atStart.path}; rounds ${agentMs.map(Math.round).join(', ')} ms (of which reading the interface / waiting for provisioning's pages / waiting for the interface to take a page: ${parts.join(', ')} ms), setconf ${setconfMs.map(Math.round).join(', ')} ms`,
      });
      if (peers === s.reconcilePeers.at(-1))
        figures.push({
          figure: `node agent resident memory at ${peers} peers (reconciled, its watch running)`,
          value: Math.round(rssMiB),
          unit: 'MiB',
          note: 'the largest of the rounds; the agent runs as a bundle (libs/build), as `make dev` runs it',
        });
    }
    return figures;
  } finally {
    await follower?.stop().catch(() => undefined);
    await lab.destroy();
    await stack.stop();
    await rm(keyDir, { recursive: true, force: true });
  }
}

export const wireguardBench: Bench = {
  name: 'wireguard',
  title: 'WireGuard path on real wireguard-go: add device → peer live, reconcile, handshake watch, agent memory',
  run: runWireguardBench,
};
