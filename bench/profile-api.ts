/**
 * A tool for working on the request path (not a benchmark of the table): starts the api bench's
 * stack, then loads one of its routes with autocannon (20 connections).
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] prof     profiles this process (gateway and
 *       services) during the load into /tmp/qw-api-<route>.cpuprofile (Chrome DevTools, speedscope),
 *       one sample every PROFILE_INTERVAL_US microseconds (default 5000)
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] compare  three rounds alternating with a bare
 *       fastify route serving the same bytes; prints the medians
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] procs    the same with the gateway and each
 *       service in its own process (bench/lib/process-layout.ts), as production runs them
 *   npx tsx bench/profile-api.ts <route 0-3> [seconds] floor    the design's floor: a bare fastify route
 *       that verifies the bearer token, asks one NATS request whose responder runs the device list's
 *       one query (the customer's 10 devices) and answers its rows (route 1: the Overview's query
 *       of three columns, answering its counts; route 2: the organization's page of 50 rows; route
 *       3: the console's first 25 rows with the total), beside the bare route and the
 *       real one (no product code in between: what one HTTP hop, one bus hop and one query cost)
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Fastify from 'fastify';
import { allowRpcInTransactions } from '@qw/platform';
import { freePort } from '@qw/testkit';
import { startStack } from '../services/gateway/test/support/stack.ts';
import { deviceServices } from '../services/gateway/test/support/products.ts';
import { load, routesOf } from './api.bench.ts';
import { listenOnLoopback } from './lib/listen.ts';
import { spawnProcessLayout } from './lib/process-layout.ts';
import { countRoundTrips, type RoundTrips } from './lib/round-trips.ts';
import { medianOfRounds } from './lib/runner.ts';

// As `make bench` does (bench/run.ts): production runs without the testkit's transaction check.
allowRpcInTransactions();
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
    const trips = countRoundTrips();
    const seen: RoundTrips[] = [];
    for (let i = 0; i < 20; i++) {
      trips.reset();
      const one = await fetch(url, { headers });
      if (!one.ok) throw new Error(String(one.status));
      await one.arrayBuffer();
      seen.push({ ...trips.counted });
    }
    trips.stop();
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
  } else if (mode === 'floor') {
    const { connect } = await import('@nats-io/transport-node');
    const { sql } = await import('kysely');
    const { createVerifier } = await import('fast-jwt');
    const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
    const db = stack.services.provisioning!.db;
    const verify = createVerifier({ key: jwtSecret });
    const subject = `floor.${randomBytes(4).toString('hex')}`;
    const orgOfRoute = /\/api\/orgs\/([^/]+)\//.exec(route.path)?.[1] ?? null;
    // The list's floor answers the person's rows; the Overview's reads the three columns its
    // counts need and answers the counts alone (its real answer is as small).
    const answerOf: Record<number, (user: string) => Promise<unknown>> = {
      0: async (user) =>
        (await sql`select * from devices where user_id = ${user}::uuid order by created_at`.execute(db)).rows,
      1: async (user) => {
        const { rows } = await sql<{ is_active: boolean; public_key: string | null; latest_handshake: Date | null }>`
          select is_active, public_key, latest_handshake from devices where user_id = ${user}::uuid and org_id is null`.execute(
          db,
        );
        const connected = rows.filter((row) => row.is_active && row.latest_handshake !== null).length;
        return { devices: rows.length, connected, status: connected > 0 ? 'Online' : 'Idle' };
      },
      // An organization's second page of 50, its rows as they are (no membership, no quota).
      2: async () =>
        (
          await sql`select * from devices where org_id = ${orgOfRoute}::uuid
                     order by created_at desc, id desc limit 50 offset 50`.execute(db)
        ).rows,
      // The console's first page of 25 with the total beside each row, every device's.
      3: async () =>
        (
          await sql`select d.*, (select count(*) from devices) as total from devices d
                     order by created_at desc, id desc limit 25`.execute(db)
        ).rows,
    };
    const answer = answerOf[index];
    if (!answer) throw new Error('floor measures routes 0 to 3');
    nc.subscribe(subject, {
      callback: (_error, msg) => {
        const { user } = JSON.parse(new TextDecoder().decode(msg.data)) as { user: string };
        void answer(user).then((body) => msg.respond(JSON.stringify(body)));
      },
    });
    const floor = Fastify({ logger: false });
    floor.get('/floor', async (request) => {
      const claims = verify((request.headers.authorization ?? '').slice('Bearer '.length)) as { sub: string };
      const answer = await nc.request(subject, JSON.stringify({ user: claims.sub }), { timeout: 5000 });
      return JSON.parse(new TextDecoder().decode(answer.data));
    });
    const floorPort = await freePort();
    await floor.listen({ host: '127.0.0.1', port: floorPort });
    const floorUrl = `http://127.0.0.1:${floorPort}/floor`;
    if (!(await fetch(floorUrl, { headers })).ok) throw new Error('the floor route did not answer');
    const m = await medianOfRounds(3, 1, async () => {
      const plain = await load(`http://127.0.0.1:${barePort}/bare`, { connections: 20, seconds });
      const least = await load(floorUrl, { connections: 20, seconds, headers });
      const api = await load(url, { connections: 20, seconds, headers });
      return {
        bare: plain.requestsPerSecond,
        floor: least.requestsPerSecond,
        floorP99: least.p99Ms,
        api: api.requestsPerSecond,
        p99: api.p99Ms,
      };
    });
    console.log(
      `bare ${m.bare} req/s; floor (token, one NATS request, one query) ${m.floor} req/s (ratio ${(m.floor / m.bare).toFixed(3)}), p99 ${m.floorP99} ms; ${route.name} ${m.api} req/s (ratio ${(m.api / m.bare).toFixed(3)}, ${(m.api / m.floor).toFixed(2)} of the floor), p99 ${m.p99} ms`,
    );
    await floor.close();
    await nc.close();
  } else if (mode === 'compare') {
    // CPU time per request, of this process (gateway and services) and of the whole machine
    // (Postgres, NATS and autocannon too, from /proc/stat): steadier than requests/s on a busy machine.
    const machineBusyMs = () => {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
      const idle = fields[3]! + fields[4]!;
      return ((fields.reduce((a, b) => a + b, 0) - idle) * 1000) / 100;
    };
    // A server's own: the user and system time of every process of that name (clock ticks of 10 ms).
    const serverMs = (name: string) => {
      let ticks = 0;
      for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          if (!stat.includes(`(${name})`)) continue;
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          ticks += Number(fields[11]) + Number(fields[12]);
        } catch {
          // The process ended meanwhile.
        }
      }
      return ticks * 10;
    };
    const cpuMs = async (run: () => Promise<{ total: number }>) => {
      const before = process.cpuUsage();
      const machineBefore = machineBusyMs();
      const postgresBefore = serverMs('postgres');
      const natsBefore = serverMs('nats-server');
      const { total } = await run();
      const used = process.cpuUsage(before);
      return {
        own: (used.user + used.system) / 1000 / total,
        machine: (machineBusyMs() - machineBefore) / total,
        postgres: (serverMs('postgres') - postgresBefore) / total,
        nats: (serverMs('nats-server') - natsBefore) / total,
      };
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
        bareCpu: bareCpu.own,
        apiCpu: apiCpu.own,
        bareMachine: bareCpu.machine,
        apiMachine: apiCpu.machine,
        apiPostgres: apiCpu.postgres,
        apiNats: apiCpu.nats,
      };
    });
    console.log(
      `${route.name}: ${m.api} req/s (bare ${m.bare}, ratio ${(m.api / m.bare).toFixed(3)}), p99 ${m.p99} ms (bare ${m.bareP99}); CPU per request ${m.apiCpu.toFixed(3)} ms in this process, ${m.apiMachine.toFixed(3)} ms on the machine, ${m.apiPostgres.toFixed(3)} ms in Postgres, ${m.apiNats.toFixed(3)} ms in NATS (bare ${m.bareCpu.toFixed(3)}, ${m.bareMachine.toFixed(3)})`,
    );
  } else {
    await load(url, { connections: 20, seconds: 2, headers });
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    // The inspector's default sampling (about 1 ms here) took three quarters of the throughput
    // away and put a quarter of the samples in socket writes; at 5 ms the load runs at nearly its
    // own speed and the profile shows the path as it runs.
    await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 5000) });
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
