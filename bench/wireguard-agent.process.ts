/**
 * A node agent alone in its process, as on a server, for the WireGuard benchmark. It starts
 * (registering, and reconciling the whole desired set onto its interface), times ten readings of
 * its handshake watch and ten of the sample's dump (each also through `wg`), and prints
 * `BENCH {json}`: the start's reconcile, the path it took (uapi or wg), the peers applied, the
 * medians, the times of bare one-peer `wg set`s and UAPI sets, and its resident memory a few
 * seconds later (its watch running meanwhile). With BENCH_MODE=follow it then keeps running and
 * prints `LIVE <public key> <applied> <stored> <received> <keyed>` (epoch ms: applied, JetStream
 * stored the event, the agent had it, its preshared key fetched) for each peer change, until SIGTERM.
 */
import { createLogger, loadConfig } from '@qw/platform';
import { NodeAgent } from '../services/node-agent/src/agent.ts';
import { NodeAgentConfigSchema } from '../services/node-agent/src/config.ts';
import { newlyConnected, parseLatestHandshakes } from '../services/node-agent/src/handshake-watch.ts';
import {
  generateKeyPair,
  parseWgDump,
  uapiSet,
  uapiSocketPath,
  wgSetPeersArgs,
  wgShowDumpArgs,
  wgShowLatestHandshakesArgs,
} from '@qw/wireguard';
import { median } from './lib/figures.ts';

const config = loadConfig(NodeAgentConfigSchema, process.env);
const agent = new NodeAgent(config, createLogger({ service: 'node-agent', level: 'silent' }));
const follow = process.env.BENCH_MODE === 'follow';
if (follow)
  agent.onPeersApplied = (keys, at, steps) => {
    const epoch = (ms: number) => performance.timeOrigin + ms;
    for (const key of keys)
      process.stdout.write(`LIVE ${key} ${epoch(at)} ${steps.stored} ${epoch(steps.received)} ${epoch(steps.keyed)}\n`);
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
const wgWatch: number[] = [];
const wgDump: number[] = [];
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
  // The same readings through `wg` (what the agent did before the socket, and does on kernel WireGuard).
  wgWatch.push(
    await timed(async () => {
      const current = parseLatestHandshakes(await agent.host.wg(wgShowLatestHandshakesArgs(config.WG_INTERFACE)));
      newlyConnected(previous, current, Date.now() / 1000);
    }),
  );
  wgDump.push(await timed(async () => parseWgDump(await agent.host.wg(wgShowDumpArgs(config.WG_INTERFACE)))));
}
// One bare `wg set` of one new peer (and its removal, untimed), through the same prefix, from this process.
// And one bare UAPI set of one new peer on the interface's socket (when it has one).
const bareSet: number[] = [];
const bareUapiSet: number[] = [];
const socket = uapiSocketPath(config.WG_INTERFACE);
const path = await agent.host.path();
for (let i = 0; i < Number(process.env.BENCH_BARE_SETS ?? 50); i++) {
  const peer = { publicKey: generateKeyPair().publicKey, allowedIps: [`10.127.${i >> 8}.${i & 255}/32`] };
  bareSet.push(await timed(() => agent.host.wg(wgSetPeersArgs(config.WG_INTERFACE, [peer]))));
  await agent.host.wg(wgSetPeersArgs(config.WG_INTERFACE, [{ publicKey: peer.publicKey, remove: true }]));
  if (path !== 'uapi') continue;
  bareUapiSet.push(await timed(() => uapiSet(socket, [peer])));
  await uapiSet(socket, [{ publicKey: peer.publicKey, remove: true }]);
}
// The watch reads every HANDSHAKE_WATCH_SECONDS meanwhile: memory as it runs, not just after start.
await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_SETTLE_MS ?? 3000)));
const rssMiB = process.memoryUsage().rss / 2 ** 20;
const result = {
  ...reconcile,
  path,
  applied,
  watchMs: median(watch),
  dumpMs: median(dump),
  wgWatchMs: median(wgWatch),
  wgDumpMs: median(wgDump),
  bareSetMs: bareSet,
  bareUapiSetMs: bareUapiSet,
  rssMiB,
};
process.stdout.write(`BENCH ${JSON.stringify(result)}\n`);
if (follow) {
  await new Promise((resolve) => process.once('SIGTERM', resolve));
}
await agent.stop();
process.exit(0);
