/**
 * The operator console at fleet scale: 100,000 devices of 20,000 people (a tenth in 2,000
 * organizations) on 50 nodes, a third of them connected, seeded straight into identity's,
 * provisioning's and telemetry's schemas with bulk SQL (the bench's seeding only: the services then
 * answer from their own tables as in production). Every admin list page and the overview are timed
 * through the gateway over HTTP as a platform admin, beside a bare fastify route in the same
 * process, so the figures say what the product adds to an HTTP round trip on this machine.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { sql, type Kysely } from 'kysely';
import { freePort } from '@qw/testkit';
import { nodeSubnets } from '@qw/wireguard';
import { Client, confirmEmail, startStack, type Stack } from '../services/gateway/test/support/stack.ts';
import { deviceServices } from '../services/gateway/test/support/products.ts';
import { listenOnLoopback } from './lib/listen.ts';
import type { Bench } from './lib/figures.ts';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export type AdminBenchOptions = {
  devices?: number;
  users?: number;
  nodes?: number;
  organizations?: number;
  /** Share of devices connected now (0 to 1). */
  connected?: number;
  samples?: number;
};

const chunk = 10_000;

async function seed(stack: Stack, o: Required<AdminBenchOptions>) {
  const identity = stack.services.identity!.db as Kysely<any>;
  const provisioning = stack.services.provisioning!.db as Kysely<any>;
  const telemetry = stack.services.telemetry!.db as Kysely<any>;
  const userIds = Array.from({ length: o.users }, () => randomUUID());
  const orgIds = Array.from({ length: o.organizations }, () => randomUUID());
  const nodeIds = Array.from({ length: o.nodes }, () => randomUUID());

  // identity: people (a hash nobody can sign in with) and organizations.
  for (let i = 0; i < userIds.length; i += chunk) {
    const ids = userIds.slice(i, i + chunk);
    await sql`insert into users (id, email, password_hash, email_verified_at, created_at)
      select id, 'user' || (${i}::int + n) || '@bench.example', 'x', now(), now() - (${i}::int + n) * interval '1 minute'
        from unnest(${ids}::uuid[]) with ordinality as t(id, n)`.execute(identity);
    await sql`insert into profiles (id, email, full_name)
      select id, 'user' || (${i}::int + n) || '@bench.example', 'Bench person ' || (${i}::int + n)
        from unnest(${ids}::uuid[]) with ordinality as t(id, n)`.execute(identity);
  }
  await sql`insert into organizations (id, name, plan)
    select id, 'Bench org ' || n, 'business50' from unnest(${orgIds}::uuid[]) with ordinality as t(id, n)`.execute(
    identity,
  );

  // provisioning: nodes (their subnets as registration gives them) and devices spread over them.
  for (const [index, id] of nodeIds.entries()) {
    const subnets = nodeSubnets(index);
    await provisioning
      .insertInto('nodes')
      .values({
        id,
        name: `bench-${String(index).padStart(2, '0')}`,
        region: 'europe',
        ip: `198.18.0.${index + 1}`,
        ssh_user: index % 2 ? 'ops' : null,
        ssh_port: index % 3 ? null : 2222,
        endpoint: `198.18.0.${index + 1}:51820`,
        public_key: Buffer.from(randomUUID().replace(/-/g, '')).toString('base64').slice(0, 43) + '=',
        node_index: index,
        ipv4_cidr: subnets.ipv4Cidr,
        ipv6_cidr: subnets.ipv6Cidr,
        tags: [],
        last_seen_at: new Date(),
      })
      .execute();
  }
  for (let i = 0; i < o.devices; i += chunk) {
    const count = Math.min(chunk, o.devices - i);
    await sql`with nodes_by_index as (select id, ipv4_cidr, ipv6_cidr, node_index from nodes)
      insert into devices (id, user_id, org_id, name, platform, is_active, public_key, private_key_sealed, client_keys,
                           node_id, ipv4, ipv6, key_created_at, created_at)
      select gen_random_uuid(),
             (${userIds}::uuid[])[1 + (g % ${o.users}::int)],
             case when g % 10 = 0 then (${orgIds}::uuid[])[1 + ((g / 10) % ${o.organizations}::int)] end,
             'Device ' || g,
             (array['ios','android','macos','windows','linux','router','other'])[1 + g % 7],
             g % 50 <> 0,
             encode(sha256(('bench' || g)::bytea), 'base64'),
             null, true,
             n.id,
             split_part(n.ipv4_cidr, '.', 1) || '.' || split_part(n.ipv4_cidr, '.', 2) || '.' ||
               ((2 + g / ${o.nodes}::int) / 256) || '.' || ((2 + g / ${o.nodes}::int) % 256),
             split_part(n.ipv6_cidr, '/', 1) || to_hex(2 + g / ${o.nodes}::int),
             now(), now() - g * interval '1 second'
        from generate_series(${i}::int, ${i + count - 1}::int) g
        join nodes_by_index n on n.node_index = g % ${o.nodes}::int`.execute(provisioning);
  }

  // telemetry: the nodes' names, every key, the latest row per device (a share connected now,
  // latency where measured), 24 hours of traffic and each node's host metrics.
  await sql`insert into nodes (id, name)
    select id, 'bench-' || lpad((n - 1)::text, 2, '0') from unnest(${nodeIds}::uuid[]) with ordinality as t(id, n)`.execute(
    telemetry,
  );
  const devices = await provisioning
    .selectFrom('devices')
    .select(['id', 'user_id', 'org_id', 'node_id', 'public_key'])
    .execute();
  for (let i = 0; i < devices.length; i += chunk) {
    const part = devices.slice(i, i + chunk);
    const ids = part.map((d: any) => d.id);
    await sql`insert into device_keys (public_key, device_id, user_id, org_id, node_id)
      select * from unnest(${part.map((d: any) => d.public_key)}::text[], ${ids}::uuid[],
                           ${part.map((d: any) => d.user_id)}::uuid[], ${part.map((d: any) => d.org_id)}::uuid[],
                           ${part.map((d: any) => d.node_id)}::uuid[])`.execute(telemetry);
    await sql`insert into device_latest_telemetry (device_id, node_id, ts, rx_bytes, tx_bytes, latency_ms, latest_handshake, endpoint)
      select id, node, now() - interval '5 seconds', (random() * 1e9)::bigint, (random() * 1e8)::bigint,
             case when random() < ${o.connected}::float8 then (5 + random() * 80)::real end,
             case when random() < ${o.connected}::float8 then now() - interval '30 seconds' else now() - interval '2 days' end,
             '203.0.113.0/24'
        from unnest(${ids}::uuid[], ${part.map((d: any) => d.node_id)}::uuid[]) as t(id, node)`.execute(telemetry);
  }
  // provisioning keeps each device's latest handshake from telemetry's events: the same values.
  const handshakes = await sql<{ device_id: string; latest_handshake: Date }>`
    select device_id, latest_handshake from device_latest_telemetry where latest_handshake is not null`.execute(
    telemetry,
  );
  for (let i = 0; i < handshakes.rows.length; i += chunk) {
    const part = handshakes.rows.slice(i, i + chunk);
    await sql`update devices set latest_handshake = seen.at
        from unnest(${part.map((r) => r.device_id)}::uuid[], ${part.map((r) => new Date(r.latest_handshake).toISOString())}::timestamptz[]) as seen(id, at)
       where devices.id = seen.id`.execute(provisioning);
  }
  await sql`insert into telemetry (ts, rx_bytes, tx_bytes)
    select date_trunc('hour', now()) - h * interval '1 hour', (random() * 1e12)::bigint, (random() * 1e11)::bigint
      from generate_series(0, 23) h where h <> 7`.execute(telemetry);
  await sql`insert into vps_metrics (host_id, ts, cpu, mem_used, mem_total, disk_used, disk_total, load1, load5, load15)
    select id, now() - s * interval '15 seconds', random() * 100, 3e9, 8e9, 2e10, 6e10, random(), random(), random()
      from unnest(${nodeIds}::uuid[]) id, generate_series(0, 39) s`.execute(telemetry);
  for (const db of [identity, provisioning, telemetry]) await sql`analyze`.execute(db);
  return { nodeIds, orgIds };
}

export async function runAdminBench(options: AdminBenchOptions = {}) {
  const o: Required<AdminBenchOptions> = {
    devices: options.devices ?? 100_000,
    users: options.users ?? 20_000,
    nodes: options.nodes ?? 50,
    organizations: options.organizations ?? 2_000,
    connected: options.connected ?? 0.3,
    samples: options.samples ?? 40,
  };
  const stack = await startStack({
    label: 'benchadmin',
    adminEmails: ['ops@quietwire.test'],
    extra: deviceServices,
  });
  const baseUrl = await listenOnLoopback(stack);
  const bare = Fastify({ logger: false });
  const barePayload = { rows: Array.from({ length: 25 }, (_, i) => ({ id: randomUUID(), name: `Device ${i}::int` })) };
  bare.get('/bare', async () => barePayload);
  const barePort = await freePort();
  await bare.listen({ host: '127.0.0.1', port: barePort });
  try {
    const seedStarted = Date.now();
    const { nodeIds, orgIds } = await seed(stack, o);
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    const signup = new Client(stack.app, '198.51.100.7');
    await signup.call('POST', '/api/auth/signup', { email: 'ops@quietwire.test', password: 'correct horse battery' });
    const admin = await confirmEmail(stack, 'ops@quietwire.test', 'correct horse battery', signup);
    const token = admin.accessToken!;
    const time = async (url: string): Promise<{ ms: number; body: any }> => {
      const started = performance.now();
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.json();
      const ms = performance.now() - started;
      if (!response.ok) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
      return { ms, body };
    };
    const lastPage = Math.max(1, Math.ceil(o.devices / 25));
    const pages: Array<{ name: string; url: string }> = [
      { name: 'bare fastify route (same process)', url: `http://127.0.0.1:${barePort}/bare` },
      { name: 'GET /api/admin/overview', url: '/api/admin/overview' },
      { name: 'GET /api/admin/devices (first page)', url: '/api/admin/devices' },
      { name: 'GET /api/admin/devices (last page)', url: `/api/admin/devices?page=${lastPage}` },
      { name: 'GET /api/admin/devices?sort=name', url: '/api/admin/devices?sort=name&dir=asc' },
      { name: 'GET /api/admin/devices?q=<one e-mail>', url: `/api/admin/devices?q=user${Math.ceil(o.users / 3)}@` },
      { name: 'GET /api/admin/devices?q=<matches every owner>', url: '/api/admin/devices?q=bench.example' },
      { name: 'GET /api/admin/devices?connected=true', url: '/api/admin/devices?connected=true' },
      { name: 'GET /api/admin/devices?connected=false', url: '/api/admin/devices?connected=false' },
      { name: 'GET /api/admin/devices?node=…', url: `/api/admin/devices?node=${nodeIds[0]}` },
      { name: 'GET /api/admin/devices?org=…', url: `/api/admin/devices?org=${orgIds[0]}` },
      { name: 'GET /api/admin/telemetry', url: '/api/admin/telemetry' },
      { name: 'GET /api/admin/telemetry?sort=latency_ms', url: '/api/admin/telemetry?sort=latency_ms&dir=asc' },
      { name: 'GET /api/admin/telemetry?connected=true', url: '/api/admin/telemetry?connected=true' },
      { name: 'GET /api/admin/servers', url: '/api/admin/servers' },
    ];
    const first = await time(new URL('/api/admin/overview', baseUrl).toString());
    const results: Array<{ name: string; p50: number; p95: number; total?: number }> = [];
    for (const page of pages) {
      const url = page.url.startsWith('http') ? page.url : new URL(page.url, baseUrl).toString();
      for (let i = 0; i < 3; i++) await time(url);
      const times: number[] = [];
      let total: number | undefined;
      for (let i = 0; i < o.samples; i++) {
        const { ms, body } = await time(url);
        times.push(ms);
        total = typeof body.total === 'number' ? body.total : undefined;
      }
      times.sort((a, b) => a - b);
      results.push({
        name: page.name,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        ...(total !== undefined ? { total } : {}),
      });
    }
    return { ...o, seedSeconds, overview: first.body, results };
  } finally {
    await bare.close();
    await stack.stop();
  }
}

export const adminBench: Bench = {
  name: 'admin',
  title: 'operator console: every admin list page and the overview through the gateway, beside a bare route',
  async run(size) {
    const env = process.env;
    const result = await runAdminBench(
      size === 'tiny'
        ? { devices: 300, users: 60, nodes: 3, organizations: 6, samples: 5 }
        : {
            devices: Number(env.BENCH_ADMIN_DEVICES ?? 100_000),
            users: Number(env.BENCH_ADMIN_USERS ?? 20_000),
            nodes: Number(env.BENCH_ADMIN_NODES ?? 50),
            samples: Number(env.BENCH_SAMPLES ?? 40),
          },
    );
    const [bare, ...pages] = result.results;
    const note = `${result.devices} devices of ${result.users} people on ${result.nodes} nodes, one request at a time`;
    return pages.flatMap((row) => [
      {
        figure: `${row.name}: p50`,
        value: row.p50,
        unit: 'ms',
        baseline: { label: 'bare fastify route', value: bare!.p50 },
        note: `${note}${row.total !== undefined ? `; total ${row.total}` : ''}`,
      },
      {
        figure: `${row.name}: p95`,
        value: row.p95,
        unit: 'ms',
        baseline: { label: 'bare fastify route', value: bare!.p95 },
        note,
      },
    ]);
  },
};
