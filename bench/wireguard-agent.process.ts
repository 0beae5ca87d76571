/**
 * A node agent alone in its process, as on a server, for the WireGuard benchmark. It starts
 * (registering, and reconciling the whole desired set onto its interface), times ten readings of
 * its handshake watch and ten of the sample's dump, and prints `BENCH {json}`: the start's
 * reconcile, the peers applied, the two medians, the times of bare one-peer `wg set`s and its resident memory a few seconds later (its
 * watch running meanwhile). With BENCH_MODE=follow it then keeps running and prints
 * `LIVE <public key> <epoch ms>` each time `wg set` returned for a peer change, until SIGTERM.
 */
import { createLogger, loadConfig } from '@qw/platform';
import { NodeAgent } from '../services/node-agent/src/agent.ts';
import { NodeAgentConfigSchema } from '../services/node-agent/src/config.ts';
import { newlyConnected } from '../services/node-agent/src/handshake-watch.ts';
import { generateKeyPair, wgSetPeersArgs } from '@qw/wireguard';
import { median } from './lib/figures.ts';

const config = loadConfig(NodeAgentConfigSchema, process.env);
const agent = new NodeAgent(config, createLogger({ service: 'node-agent', level: 'silent' }));
const follow = process.env.BENCH_MODE === 'follow';
if (follow)
  agent.onPeersApplied = (keys, at) => {
    const epochMs = performance.timeOrigin + at;
    for (const key of keys) process.stdout.write(`LIVE ${key} ${epochMs}\n`);
  };
await agent.start();
const reconcile = agent.lastReconcile!;
const applied = (await agent.host.dump()).peers.length;

async function timed(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}
const watch: number[] = [];
const dump: number[] = [];
let previous = new Map<string, number>();
for (let i = 0; i < 10; i++) {
  watch.push(
    await timed(async () => {
      const current = await agent.host.latestHandshakes();
      newlyConnected(previous, current, Date.now() / 1000);
      previous = current;
    }),
  );
  dump.push(await timed(() => agent.host.dump()));
}
// One bare `wg set` of one new peer (and its removal, untimed), through the same prefix, from this process.
const bareSet: number[] = [];
for (let i = 0; i < Number(process.env.BENCH_BARE_SETS ?? 50); i++) {
  const peer = { publicKey: generateKeyPair().publicKey, allowedIps: [`10.127.${i >> 8}.${i & 255}/32`] };
  bareSet.push(await timed(() => agent.host.wg(wgSetPeersArgs(config.WG_INTERFACE, [peer]))));
  await agent.host.wg(wgSetPeersArgs(config.WG_INTERFACE, [{ publicKey: peer.publicKey, remove: true }]));
}
// The watch reads every HANDSHAKE_WATCH_SECONDS meanwhile: memory as it runs, not just after start.
await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_SETTLE_MS ?? 3000)));
const rssMiB = process.memoryUsage().rss / 2 ** 20;
const result = { ...reconcile, applied, watchMs: median(watch), dumpMs: median(dump), bareSetMs: bareSet, rssMiB };
process.stdout.write(`BENCH ${JSON.stringify(result)}\n`);
if (follow) {
  await new Promise((resolve) => process.once('SIGTERM', resolve));
}
await agent.stop();
process.exit(0);
