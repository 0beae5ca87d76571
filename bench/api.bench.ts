/**
 * The request path (issue #24): requests/s and p99 of four authenticated reads at 20 connections
 * (autocannon in its own process), each beside a bare fastify route in the same process serving
 * the same bytes, measured in alternating rounds so both see the same machine:
 *  - GET /api/devices, a customer with 10 devices;
 *  - GET /api/overview, the same customer;
 *  - GET /api/orgs/{id}/devices, the second page (50 devices, the default page) of an organization
 *    with 1,000 devices, as its owner;
 *  - GET /api/admin/devices, the first page of every device, as a platform admin.
 * The gateway and the services run in this process (startStack) on their own database and NATS
 * server; devices and the node they are on are seeded with SQL into provisioning's schema. At
 * full size the same routes are measured again with the gateway and each service in its own
 * process (`spawnProcessLayout`), as production runs them: on two cores neither layout is the
 * fair one alone (one process shares one thread; five processes share two cores with autocannon
 * and the bare route), so the table shows both.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import { orgDevicePageSizes } from '@qw/contracts';
import { sql, type Kysely } from 'kysely';
import { freePort } from '@qw/testkit';
import { confirmEmail, startStack, type Stack } from '../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../services/gateway/test/support/products.ts';
import { ownOrganization, userIdOf } from '../services/gateway/test/support/organizations.ts';
import { seedDevices, seedNode } from '../services/gateway/test/support/seeded-devices.ts';
import type { Bench, BenchFigure, BenchSize } from './lib/figures.ts';
import { listenOnLoopback } from './lib/listen.ts';
import { spawnProcessLayout } from './lib/process-layout.ts';
import { medianOfRounds } from './lib/runner.ts';

const autocannonCli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

export type LoadResult = { requestsPerSecond: number; p99Ms: number; non2xx: number; errors: number; total: number };

/** autocannon against `url` from its own process (so it takes no time from the server measured here). */
export function load(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<LoadResult> {
  const args = [autocannonCli, '-j', '-n', '-c', String(options.connections), '-d', String(options.seconds)];
  for (const [key, value] of Object.entries(options.headers ?? {})) args.push('-H', `${key}=${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err.slice(-500)}`));
      const report = JSON.parse(out);
      resolve({
        requestsPerSecond: report.requests.average,
        p99Ms: report.latency.p99,
        non2xx: report.non2xx,
        total: report.requests.total,
        errors: report.errors + report.timeouts,
      });
    });
  });
}

const sizes = {
  full: { orgDevices: 1000, seconds: 5, rounds: 3, warmUp: 1, processes: true },
  // Five more processes (each a bundle, libs/build) and their start: not at the test's size.
  tiny: { orgDevices: 100, seconds: 1, rounds: 1, warmUp: 0, processes: false },
} satisfies Record<BenchSize, unknown>;

type Route = { name: string; path: string; token: string };

export async function routesOf(stack: Stack, orgDevices: number): Promise<Route[]> {
  const provisioning = stack.services.provisioning!.db as Kysely<any>;
  const nodeId = await seedNode(provisioning, 'bench-api-0');
  const customer = await confirmEmail(
    stack,
    'customer@bench.test',
    'correct horse battery',
    await customerWithPlan(stack, 'customer@bench.test'),
  );
  await seedDevices(provisioning, nodeId, 10, { userId: await userIdOf(customer), orgId: null });
  // The platform admin owns the organization (a business purchase made it).
  const owner = await confirmEmail(
    stack,
    'ops@bench.test',
    'correct horse battery',
    await customerWithPlan(stack, 'ops@bench.test', 'business50'),
  );
  const orgId = await ownOrganization(owner);
  await seedDevices(provisioning, nodeId, orgDevices, { userId: await userIdOf(owner), orgId });
  await sql`analyze`.execute(provisioning);
  return [
    { name: 'GET /api/devices (10 devices)', path: '/api/devices', token: customer.accessToken! },
    { name: 'GET /api/overview (10 devices)', path: '/api/overview', token: customer.accessToken! },
    {
      name: `GET /api/orgs/{id}/devices (a page of ${orgDevicePageSizes.default} of ${orgDevices} devices)`,
      path: `/api/orgs/${orgId}/devices?page=2`,
      token: owner.accessToken!,
    },
    {
      name: `GET /api/admin/devices (first page of ${orgDevices + 10})`,
      path: '/api/admin/devices',
      token: owner.accessToken!,
    },
  ];
}

export async function runApiBench(size: BenchSize): Promise<BenchFigure[]> {
  const o = {
    ...sizes[size],
    ...(size === 'full' && process.env.BENCH_SECONDS ? { seconds: Number(process.env.BENCH_SECONDS) } : {}),
  };
  const connections = 20;
  const jwtSecret = randomBytes(32).toString('base64url');
  const sealingKey = randomBytes(32).toString('base64');
  const stack = await startStack({
    label: 'benchapi',
    adminEmails: ['ops@bench.test'],
    extra: (publicUrl, mailUrl) => deviceServices(publicUrl, mailUrl, sealingKey),
    gatewayEnv: { JWT_SECRET: jwtSecret },
  });
  const bare = Fastify({ logger: false });
  let layout: Awaited<ReturnType<typeof spawnProcessLayout>> | undefined;
  try {
    const baseUrl = await listenOnLoopback(stack);
    const routes = await routesOf(stack, o.orgDevices);
    // The bare route answers each route's own answer, parsed and serialised again per request.
    const bodies = new Map<string, { body: unknown; bytes: number }>();
    for (const route of routes) {
      const response = await fetch(new URL(route.path, baseUrl), {
        headers: { authorization: `Bearer ${route.token}` },
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${route.path}: ${response.status} ${text.slice(0, 300)}`);
      bodies.set(route.path, { body: JSON.parse(text), bytes: Buffer.byteLength(text) });
    }
    bare.get('/bare/:index', async (request) => {
      const index = Number((request.params as { index: string }).index);
      return bodies.get(routes[index]!.path)!.body;
    });
    const barePort = await freePort();
    await bare.listen({ host: '127.0.0.1', port: barePort });

    const figures: BenchFigure[] = [];
    /**
     * Each route's figures in one layout. `failed`: what to do with a route that answered other
     * than 2xx under load; 'throw' fails the bench, 'report' prints it and leaves the route out of
     * this layout's figures (the second layout's figures are worth having when one route fails).
     */
    const measure = async (apiUrl: string, layoutName: string, layoutNote: string, failed: 'throw' | 'report') => {
      for (const [index, route] of routes.entries()) {
        const measuredOrError = await medianOfRounds(o.rounds, o.warmUp, async () => {
          const plain = await load(`http://127.0.0.1:${barePort}/bare/${index}`, {
            connections,
            seconds: o.seconds,
          });
          const api = await load(new URL(route.path, apiUrl).toString(), {
            connections,
            seconds: o.seconds,
            headers: { authorization: `Bearer ${route.token}` },
          });
          // A refusal would measure the wrong thing; a timeout (10 s) is a figure of the route, noted.
          if (api.non2xx > 0) throw new Error(`${route.path}: ${api.non2xx} answers other than 2xx under load`);
          return {
            bareRps: plain.requestsPerSecond,
            bareP99: plain.p99Ms,
            rps: api.requestsPerSecond,
            p99: api.p99Ms,
            errors: api.errors,
          };
        }).catch((error: Error) => {
          if (failed === 'throw') throw error;
          console.error(`api bench${layoutName}: ${route.name} left out: ${error.message}`);
          return undefined;
        });
        if (!measuredOrError) continue;
        const measured = measuredOrError;
        const note = `${layoutNote}; ${bodies.get(route.path)!.bytes} bytes per answer; ${connections} connections, median of ${o.rounds} round(s) of ${o.seconds} s after ${o.warmUp} warm-up round(s), alternating with the bare route${measured.errors > 0 ? `; ${measured.errors} requests (median per round) timed out or failed and are not in p99` : ''}`;
        figures.push(
          {
            figure: `${route.name}${layoutName}: requests/s`,
            value: measured.rps,
            unit: 'req/s',
            baseline: { label: 'bare fastify, same bytes', value: measured.bareRps },
            target: { on: 'ratio', comparison: '>=', limit: 0.1 },
            note,
          },
          {
            figure: `${route.name}${layoutName}: p99 at ${connections} connections`,
            value: measured.p99,
            unit: 'ms',
            baseline: { label: 'bare fastify, same bytes', value: measured.bareP99 },
            target: { on: 'value', comparison: '<', limit: 25 },
            note,
          },
        );
      }
    };
    await measure(baseUrl, '', 'the gateway and every service in the bench process (one thread)', 'throw');
    if (o.processes) {
      layout = await spawnProcessLayout(stack, {
        names: ['identity', 'billing', 'provisioning', 'telemetry'],
        jwtSecret,
        adminEmails: ['ops@bench.test'],
        settings: { provisioning: { PRIVATE_KEY_ENCRYPTION_KEY: sealingKey } },
      });
      await measure(
        layout.baseUrl,
        ' [own processes]',
        'the gateway and each service in its own process, as in production (two cores shared with autocannon and the bare route)',
        'report',
      );
    }
    return figures;
  } finally {
    await layout?.stop();
    await bare.close();
    await stack.stop();
  }
}

export const apiBench: Bench = {
  name: 'api',
  title: 'the request path: authenticated reads through the gateway at 20 connections, beside a bare fastify route',
  run: runApiBench,
};
