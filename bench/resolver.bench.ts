/**
 * The node's resolver with the shipped blocklists (data/blocklists): how long unbound takes from
 * its start until it answers, and how much memory it holds then, beside the same unbound with
 * empty lists (the baseline). It runs as the agent runs it (NodeResolver: the same config, one
 * thread), on loopback at a free port plus the 31 IPv4 policy addresses (bound with
 * ip-freebind, so no interface is needed), forwarding to a closed port (no query leaves).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allPolicyResolverAddresses } from '@qw/wireguard';
import { blockingCategories } from '@qw/contracts';
import { createLogger } from '@qw/platform';
import { freePort } from '@qw/testkit';
import { blockedDomains, readBlocklists, shippedBlocklistDir } from '../services/node-agent/src/resolver/blocklists.ts';
import { NodeResolver } from '../services/node-agent/src/resolver/node-resolver.ts';
import { type BenchFigure, type Bench, median } from './lib/figures.ts';
import { BenchSkipped } from './lib/runner.ts';

const unbound = '/usr/sbin/unbound';

export type ResolverStart = { answeringMs: number; rssMiB: number };

/** Starts unbound with the lists of `blocklistDir`, waits until it answers, measures, stops it. */
export async function resolverStart(blocklistDir: string, work: string): Promise<ResolverStart> {
  // Below the ephemeral range (freePort): a random port above it once met an outgoing connection's.
  const port = await freePort();
  const said: string[] = [];
  const resolver = new NodeResolver(
    {
      binary: unbound,
      directory: work,
      blocklistDir,
      upstream: ['127.0.0.1@9'],
      prefix: [],
      port,
      username: '',
    },
    // Unbound's own lines before it first answers (a port in use, say) go into the error below.
    createLogger({ service: 'bench', level: 'warn', destination: { write: (line: string) => said.push(line) } }),
  );
  const policy = allPolicyResolverAddresses('fd00:1::/48').map((p) => ({ address: p.ipv4, mask: p.mask }));
  const started = performance.now();
  await resolver.start([{ address: '127.0.0.1', mask: 0 }, ...policy]);
  try {
    while (!(await resolver.probe())) {
      if (performance.now() - started > 60_000) {
        throw new Error(
          `unbound did not answer within 60 s (started again ${resolver.restarts} times): ${said.slice(-3).join(' ')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answeringMs = performance.now() - started;
    const status = await readFile(`/proc/${resolver.pid}/status`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    return { answeringMs, rssMiB: rssKiB / 1024 };
  } finally {
    await resolver.stop();
  }
}

export const resolverBench: Bench = {
  name: 'resolver',
  title: "the node's unbound with the shipped blocklists: start until answering, and its memory",
  async run(size) {
    if (!existsSync(unbound)) throw new BenchSkipped(`${unbound} is not installed (scripts/ensure-system-packages.sh)`);
    const rounds = size === 'tiny' ? 1 : 5;
    const work = await mkdtemp(path.join(tmpdir(), 'qw-bench-resolver-'));
    try {
      const empty = path.join(work, 'empty');
      await mkdir(empty);
      for (const category of blockingCategories) await writeFile(path.join(empty, `${category}.txt`), '');
      // At 'tiny' (the runner's test) a few names of each list: the same path in a second or two.
      let lists = shippedBlocklistDir;
      if (size === 'tiny') {
        lists = path.join(work, 'tiny');
        await mkdir(lists);
        const shipped = await readBlocklists(shippedBlocklistDir);
        for (const category of blockingCategories) {
          await writeFile(path.join(lists, `${category}.txt`), shipped[category].slice(0, 100).join('\n'));
        }
      }
      const full: ResolverStart[] = [];
      const bare: ResolverStart[] = [];
      for (let round = 0; round < rounds; round++) {
        bare.push(await resolverStart(empty, path.join(work, `bare-${round}`)));
        full.push(await resolverStart(lists, path.join(work, `full-${round}`)));
      }
      const used = await readBlocklists(lists);
      const zones = blockedDomains(used).length;
      const note = `${zones} local zones (${blockingCategories.map((c) => `${c} ${used[c].length}`).join(', ')}); unbound 1 thread, 32 addresses; median of ${rounds}`;
      const figures: BenchFigure[] = [
        {
          figure: 'unbound start → first answer, shipped lists',
          value: median(full.map((r) => r.answeringMs)),
          unit: 'ms',
          baseline: { label: 'empty lists', value: median(bare.map((r) => r.answeringMs)) },
          target: { on: 'value', comparison: '<', limit: 10_000 },
          note,
        },
        {
          figure: 'unbound resident memory once answering, shipped lists',
          value: median(full.map((r) => r.rssMiB)),
          unit: 'MiB',
          baseline: { label: 'empty lists', value: median(bare.map((r) => r.rssMiB)) },
          target: { on: 'value', comparison: '<', limit: 256 },
          note,
        },
      ];
      return figures;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  },
};
