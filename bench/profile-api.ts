/**
 * A tool for working on the request path (not a benchmark of the table): starts the api bench's
 * stack, then loads one of its routes with autocannon (20 connections).
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] prof     profiles this process (gateway and
 *       services) during the load into /tmp/qw-api-<route>.cpuprofile (Chrome DevTools, speedscope)
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] compare  three rounds alternating with a bare
 *       fastify route serving the same bytes; prints the medians
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] procs    the same with the gateway and each
 *       service in its own process (bench/lib/process-layout.ts), as production runs them
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Fastify from 'fastify';
import { freePort } from '@qw/testkit';
import { startStack } from '../services/gateway/test/support/stack.ts';
import { deviceServices } from '../services/gateway/test/support/products.ts';
import { load, routesOf } from './api.bench.ts';
import { listenOnLoopback } from './lib/listen.ts';
import { spawnProcessLayout } from './lib/process-layout.ts';
import { medianOfRounds } from './lib/runner.ts';

const index = Number(process.argv[2] ?? 0);
const seconds = Number(process.argv[3] ?? 10);
const mode = process.argv[4] ?? 'prof';
const jwtSecret = randomBytes(32).toString('base64url');
const sealingKey = randomBytes(32).toString('base64');
const stack = await startStack({
  label: 'profileapi',
  adminEmails: ['ops@bench.test'],
  extra: (publicUrl, mailUrl) => deviceServices(publicUrl, mailUrl, sealingKey),
  gatewayEnv: { JWT_SECRET: jwtSecret },
});
const bare = Fastify({ logger: false });
let layout: Awaited<ReturnType<typeof spawnProcessLayout>> | undefined;
try {
  const baseUrl = await listenOnLoopback(stack);
  const route = (await routesOf(stack, 1000))[index]!;
  const url = new URL(route.path, baseUrl).toString();
  const headers = { authorization: `Bearer ${route.token}` };
  const body = await (await fetch(url, { headers })).json();
  bare.get('/bare', async () => body);
  const barePort = await freePort();
  await bare.listen({ host: '127.0.0.1', port: barePort });
  if (mode === 'count') {
    // What one request costs in round trips: the RPCs asked and the Postgres queries sent by this
    // process (gateway and services), each request alone, twenty times; the fewest seen is the
    // request's own (a background loop of a service may add one now and then).
    const { RpcClient } = await import('@qw/platform');
    const pg = (await import('pg')).default;
    let rpcs = 0;
    let queries = 0;
    const request = RpcClient.prototype.request;
    RpcClient.prototype.request = function (this: unknown, ...args: unknown[]) {
      rpcs++;
      return (request as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof request;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      queries++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const seen: Array<{ rpcs: number; queries: number }> = [];
    for (let i = 0; i < 20; i++) {
      rpcs = 0;
      queries = 0;
      const one = await fetch(url, { headers });
      if (!one.ok) throw new Error(String(one.status));
      await one.arrayBuffer();
      seen.push({ rpcs, queries });
    }
    const fewest = (key: 'rpcs' | 'queries') => Math.min(...seen.map((s) => s[key]));
    console.log(
      `${route.name}: one request: ${fewest('rpcs')} RPCs, ${fewest('queries')} queries (fewest of 20; all: ${seen.map((s) => `${s.rpcs}/${s.queries}`).join(' ')})`,
    );
  } else if (mode === 'procs') {
    layout = await spawnProcessLayout(stack, {
      names: ['identity', 'billing', 'provisioning', 'telemetry'],
      jwtSecret,
      adminEmails: ['ops@bench.test'],
      settings: { provisioning: { PRIVATE_KEY_ENCRYPTION_KEY: sealingKey } },
    });
    const apiUrl = new URL(route.path, layout.baseUrl).toString();
    const m = await medianOfRounds(3, 1, async () => {
      const plain = await load(`http://127.0.0.1:${barePort}/bare`, { connections: 20, seconds });
      const api = await load(apiUrl, { connections: 20, seconds, headers });
      if (api.non2xx > 0) throw new Error(`${api.non2xx} answers other than 2xx`);
      return { bare: plain.requestsPerSecond, bareP99: plain.p99Ms, api: api.requestsPerSecond, p99: api.p99Ms };
    });
    console.log(
      `${route.name} [own processes]: ${m.api} req/s (bare ${m.bare}, ratio ${(m.api / m.bare).toFixed(3)}), p99 ${m.p99} ms (bare ${m.bareP99})`,
    );
  } else if (mode === 'compare') {
    // CPU time of this process (gateway and services) per request: steadier than requests/s on a busy machine.
    const cpuMs = async (run: () => Promise<{ total: number }>) => {
      const before = process.cpuUsage();
      const { total } = await run();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / total;
    };
    const m = await medianOfRounds(3, 1, async () => {
      let plain = { requestsPerSecond: 0, p99Ms: 0 };
      let api = { requestsPerSecond: 0, p99Ms: 0 };
      const bareCpu = await cpuMs(
        async () => (plain = await load(`http://127.0.0.1:${barePort}/bare`, { connections: 20, seconds })),
      );
      const apiCpu = await cpuMs(async () => (api = await load(url, { connections: 20, seconds, headers })));
      return {
        bare: plain.requestsPerSecond,
        bareP99: plain.p99Ms,
        api: api.requestsPerSecond,
        p99: api.p99Ms,
        bareCpu,
        apiCpu,
      };
    });
    console.log(
      `${route.name}: ${m.api} req/s (bare ${m.bare}, ratio ${(m.api / m.bare).toFixed(3)}), p99 ${m.p99} ms (bare ${m.bareP99}); CPU per request ${m.apiCpu.toFixed(3)} ms (bare ${m.bareCpu.toFixed(3)})`,
    );
  } else {
    await load(url, { connections: 20, seconds: 2, headers });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const result = await load(url, { connections: 20, seconds, headers });
    const { profile } = await session.post('Profiler.stop');
    const file = `/tmp/qw-api-${index}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${route.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms; ${file}`);
  }
} finally {
  await layout?.stop();
  await bare.close();
  await stack.stop();
}
process.exit(0);
