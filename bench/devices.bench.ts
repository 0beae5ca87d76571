/**
 * Devices on real WireGuard (network namespaces, wireguard-go): from the 201 of "add device" to
 * the peer present in `wg show` on the node, over 200 devices; and one reconcile of 10,000 peers
 * onto a fresh interface (desired set from provisioning, plan, `wg set` in batches).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createLogger, loadConfig } from '@qw/platform';
import { createWireGuardLab, eventually, wireguardLabProblem } from '@qw/testkit';
import { deviceIpv6For, generateKeyPair, intToIpv4, ipv4ToInt } from '@qw/wireguard';
import { NodeAgent } from '../services/node-agent/src/agent.ts';
import { NodeAgentConfigSchema } from '../services/node-agent/src/config.ts';
import { startStack, type Client } from '../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../services/gateway/test/support/products.ts';
import type { Bench } from './lib/figures.ts';
import { BenchSkipped } from './lib/runner.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export async function runDevicesBench(options: { devices?: number; reconcilePeers?: number } = {}) {
  const problem = await wireguardLabProblem();
  if (problem) return { skipped: problem };
  const count = options.devices ?? 200;
  const reconcilePeers = options.reconcilePeers ?? 10_000;
  const stack = await startStack({ label: 'benchdev', extra: deviceServices });
  const lab = await createWireGuardLab();
  const keyDir = await mkdtemp(path.join(tmpdir(), 'qw-bench-agent-'));
  const agentConfig = async (name: string, iface: string, prefix: string, port = 51820) =>
    loadConfig(NodeAgentConfigSchema, {
      ...(await stack.testBus.addNode(name)),
      LOG_LEVEL: 'silent',
      NODE_NAME: name,
      NODE_IP: '203.0.113.60',
      WG_INTERFACE: iface,
      WG_ENDPOINT: `${lab.nodeUnderlay}:${port}`,
      WG_LISTEN_PORT: String(port),
      WG_COMMAND_PREFIX: prefix,
      NODE_KEY_FILE: path.join(keyDir, `${name}.key`),
      RECONCILE_SECONDS: '3600',
      SAMPLE_SECONDS: '3600',
      HOST_METRICS_SECONDS: '3600',
      NODE_RESOLVER: 'off',
    });
  const agent = new NodeAgent(
    await agentConfig('bench-node-1', lab.nodeIface, lab.prefix),
    createLogger({ service: 'node-agent', level: 'silent' }),
  );
  try {
    await agent.start();
    // Customers as a household has them: each stays within fair use (30 additions an hour).
    const owners: Client[] = [];
    for (let i = 0; i < Math.ceil((count + 1) / 25); i++)
      owners.push(await customerWithPlan(stack, `bench-${i}@example.com`));
    await eventually(
      async () =>
        (await owners[0]!.call('POST', '/api/devices', { name: 'warm-up', platform: 'linux' })).statusCode === 201,
      15_000,
      100,
    );

    // 1. Add device → peer on the node. The peer list is read with `wg show <if> peers` in a loop.
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const owner = owners[(i + 1) % owners.length]!;
      const created = await owner.call('POST', '/api/devices', { name: `device ${i}`, platform: 'linux' });
      if (created.statusCode !== 201) throw new Error(`add device: ${created.statusCode}`);
      const at201 = performance.now();
      const key: string = created.data.device.public_key;
      for (;;) {
        const peers = await lab.exec(lab.nodeNs, ['wg', 'show', lab.nodeIface, 'peers']);
        if (peers.includes(key)) break;
        if (performance.now() - at201 > 10_000) throw new Error('peer did not appear in 10 s');
      }
      latencies.push(performance.now() - at201);
    }
    latencies.sort((a, b) => a - b);

    // 2. Reconcile: a second node with `reconcilePeers` devices in provisioning, fresh interface.
    const second = `wgb${randomUUID().slice(0, 8)}`;
    await lab.exec(lab.nodeNs, ['wireguard-go', second]);
    const bulk = new NodeAgent(
      await agentConfig('bench-node-2', second, lab.prefix, 51821),
      createLogger({ service: 'node-agent', level: 'silent' }),
    );
    await bulk.start();
    const node = await stack.services
      .provisioning!.db.selectFrom('nodes')
      .selectAll()
      .where('name', '=', 'bench-node-2')
      .executeTakeFirstOrThrow();
    const base = ipv4ToInt(node.ipv4_cidr.split('/')[0]!);
    const userId = randomUUID();
    const rows = Array.from({ length: reconcilePeers }, (_, i) => {
      const ipv4 = intToIpv4(base + 2 + i);
      return {
        id: randomUUID(),
        user_id: userId,
        org_id: null,
        name: `peer ${i}`,
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
    for (let i = 0; i < rows.length; i += 1000)
      await stack.services
        .provisioning!.db.insertInto('devices')
        .values(rows.slice(i, i + 1000))
        .execute();
    const reconcileStart = performance.now();
    await bulk.reconcile();
    const reconcileMs = performance.now() - reconcileStart;
    const applied = (await bulk.host.dump()).peers.length;
    await bulk.stop();
    await lab.exec(lab.nodeNs, ['ip', 'link', 'delete', second]).catch(() => undefined);

    return {
      addToPeer: {
        devices: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies.at(-1)!,
      },
      reconcile: { peers: reconcilePeers, applied, ms: reconcileMs },
    };
  } finally {
    await agent.stop();
    await lab.destroy();
    await stack.stop();
    await rm(keyDir, { recursive: true, force: true });
  }
}

export const devicesBench: Bench = {
  name: 'devices',
  title: 'devices on real WireGuard (network namespaces, wireguard-go)',
  async run(size) {
    const result = await runDevicesBench(
      size === 'tiny'
        ? { devices: 5, reconcilePeers: 200 }
        : {
            devices: Number(process.env.BENCH_DEVICES ?? 200),
            reconcilePeers: Number(process.env.BENCH_RECONCILE_PEERS ?? 10_000),
          },
    );
    if ('skipped' in result) throw new BenchSkipped(result.skipped);
    const { addToPeer, reconcile } = result;
    const note = `${addToPeer.devices} devices, the peer list read with wg show in a loop`;
    return [
      { figure: 'add device (201) → peer in wg show: p50', value: addToPeer.p50Ms, unit: 'ms', note },
      {
        figure: 'add device (201) → peer in wg show: p99',
        value: addToPeer.p99Ms,
        unit: 'ms',
        target: { on: 'value', comparison: '<', limit: 100 },
        note,
      },
      {
        figure: `reconcile ${reconcile.peers} peers on a fresh interface`,
        value: reconcile.ms / 1000,
        unit: 's',
        target: { on: 'value', comparison: '<', limit: 5 },
        note: `${reconcile.applied} peers applied`,
      },
    ];
  },
};
