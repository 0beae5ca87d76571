/**
 * A tool for working on the request path (not a benchmark of the table): starts the api bench's
 * stack, then loads one of its routes with autocannon (20 connections).
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] prof     profiles this process (gateway and
 *       services) during the load into /tmp/qw-api-<route>.cpuprofile (Chrome DevTools, speedscope)
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] compare  three rounds alternating with a bare
 *       fastify route serving the same bytes; prints the medians
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Fastify from 'fastify';
import { freePort } from '@qw/testkit';
import { startStack } from '../services/gateway/test/support/stack.ts';
import { deviceServices } from '../services/gateway/test/support/products.ts';
import { load, routesOf } from './api.bench.ts';
import { listenOnLoopback } from './lib/listen.ts';
import { medianOfRounds } from './lib/runner.ts';

const index = Number(process.argv[2] ?? 0);
const seconds = Number(process.argv[3] ?? 10);
const mode = process.argv[4] ?? 'prof';
const stack = await startStack({ label: 'profileapi', adminEmails: ['ops@bench.test'], extra: deviceServices });
const bare = Fastify({ logger: false });
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
    // What one request costs in round trips: transactions in Postgres, RPCs asked, and the CPU this
    // process spends when nobody asks anything (the services' background loops).
    const { RpcClient } = await import('@qw/platform');
    let rpcs = 0;
    const request = RpcClient.prototype.request;
    RpcClient.prototype.request = function (this: unknown, ...args: unknown[]) {
      rpcs++;
      return (request as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof request;
    const { Client } = await import('pg');
    const admin = new Client({ connectionString: stack.database.adminUrl });
    await admin.connect();
    const xacts = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const { rows } = await admin.query(
        'select xact_commit + xact_rollback as n from pg_stat_database where datname = $1',
        [stack.database.name],
      );
      return Number(rows[0].n);
    };
    const idleBefore = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const idle = process.cpuUsage(idleBefore);
    const x0 = await xacts();
    rpcs = 0;
    const one = await fetch(url, { headers });
    if (!one.ok) throw new Error(String(one.status));
    const x1 = await xacts();
    const rpcsOne = rpcs;
    const x2 = await xacts();
    console.log(
      `${route.name}: one request: ${rpcsOne} RPCs, ${x1 - x0} transactions (idle 1.5 s beside it: ${x2 - x1}); idle CPU ${((idle.user + idle.system) / 40_000).toFixed(1)}% of a core`,
    );
    await admin.end();
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
  await bare.close();
  await stack.stop();
}
process.exit(0);
