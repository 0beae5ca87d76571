import {
  addAdminEmailRoute,
  adminAuditRoute,
  adminDeviceActionRoute,
  adminDevicesRoute,
  adminEmailsRoute,
  adminOrganizationsRoute,
  adminOverviewRoute,
  adminRoutes,
  adminServerLifecycleRoutes,
  adminServersRoute,
  adminTelemetryRoute,
  addServerRoute,
  adminUsersRoute,
  drainServerRoute,
  enrolmentTokenTtlSeconds,
  newEnrolmentRoute,
  reactivateOrganizationRoute,
  removeAdminEmailRoute,
  retireServerRoute,
  type RouteAnswer,
  type RouteBody,
  suspendOrganizationRoute,
} from '@qw/contracts';
import type { Page, Route } from 'playwright-core';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

/**
 * A fake of the operator console's API (libs/contracts/src/http/admin.http.ts) for browser tests,
 * answered inside the page with `page.route`. It keeps a small fleet in memory and searches, filters,
 * sorts and pages it as the contract says, so a screen that asks for the wrong page or filter shows
 * the wrong rows. Every query and body is checked against the route's schema and every answer
 * against its response schema; drift from the contract lands in `fake.problems`.
 */

export type AdminUser = RouteAnswer<typeof adminUsersRoute>['rows'][number];
export type AdminOrganization = RouteAnswer<typeof adminOrganizationsRoute>['rows'][number];
export type AdminDevice = RouteAnswer<typeof adminDevicesRoute>['rows'][number];
export type AdminTelemetryRow = RouteAnswer<typeof adminTelemetryRoute>['rows'][number];
export type AdminServer = RouteAnswer<typeof adminServersRoute>['servers'][number];
export type AdminEmail = RouteAnswer<typeof adminEmailsRoute>['emails'][number];
export type AdminAuditEntry = RouteAnswer<typeof adminAuditRoute>['rows'][number];
export type AdminOverview = RouteAnswer<typeof adminOverviewRoute>;

export type AdminFleet = {
  users: AdminUser[];
  organizations: AdminOrganization[];
  devices: AdminDevice[];
  telemetry: AdminTelemetryRow[];
  servers: AdminServer[];
  emails: AdminEmail[];
  audit: AdminAuditEntry[];
  traffic: AdminOverview['traffic'];
};

type HttpRoute = {
  method: string;
  url: string;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<number, TSchema>;
};

export type RecordedRequest = {
  method: string;
  path: string;
  /** The contract's URL pattern, e.g. '/api/admin/organizations/:id/suspend'. */
  route: string;
  query: Record<string, string>;
  body: unknown;
};
export type Failure = { status: number; code: string; message: string; details?: Record<string, unknown> };

export type FakeAdminApi = {
  fleet: AdminFleet;
  requests: RecordedRequest[];
  problems: string[];
  /** Answers this route (its contract URL) with an error until `recover`. */
  fail(url: string, failure: Failure): void;
  recover(url: string): void;
  requestsTo(url: string, method?: string): RecordedRequest[];
  /** Every enrolment token the fake has answered with (issue #23), to look for them where they must not be. */
  tokens: string[];
};

const validators = new Map<TSchema, ReturnType<typeof Compile>>();
function problemsOf(schema: TSchema, value: unknown): string[] {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  if (validator.Check(value)) return [];
  return [...validator.Errors(value)].map((error) => `${error.instancePath || '/'}: ${error.message}`);
}

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

function matcher(url: string): RegExp {
  return new RegExp(`^${url.replace(/:[a-z_]+/gi, '([^/]+)')}$`);
}

type Query = Record<string, unknown> & { page?: number; per_page?: number; dir?: 'asc' | 'desc'; sort?: string };

function pageOf<T>(rows: readonly T[], query: Query) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 25;
  return { rows: rows.slice((page - 1) * perPage, page * perPage), total: rows.length, page, per_page: perPage };
}

function sorted<T>(rows: readonly T[], value: (row: T) => string | number | null, dir: 'asc' | 'desc' = 'desc'): T[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * sign;
  });
}

const contains = (text: string | null | undefined, q: unknown) =>
  typeof q === 'string' && q !== '' ? (text ?? '').toLowerCase().includes(q.toLowerCase()) : true;

/** The operator's own address (the fake session's admin). */
export const operatorEmail = 'ops@quietwire.test';

export async function installFakeAdminApi(page: Page, fleet: AdminFleet = demoFleet()): Promise<FakeAdminApi> {
  const failures = new Map<string, Failure>();
  const fake: FakeAdminApi = {
    fleet,
    requests: [],
    problems: [],
    fail: (url, failure) => void failures.set(url, failure),
    recover: (url) => void failures.delete(url),
    requestsTo: (url, method) =>
      fake.requests.filter((request) => request.route === url && (!method || request.method === method)),
    tokens: [],
  };
  const routes = ([...adminRoutes, ...adminServerLifecycleRoutes] as readonly HttpRoute[]).map((route) => ({
    route,
    pattern: matcher(route.url),
  }));

  const audit = (kind: string, target: string, details: Record<string, unknown> = {}) =>
    fleet.audit.unshift({
      id: crypto.randomUUID(),
      at: new Date().toISOString(),
      actor_id: idOf('operator'),
      actor_email: operatorEmail,
      kind,
      target,
      details,
    });

  const handlers: Record<string, (params: string[], query: Query, body: unknown) => [number, unknown]> = {
    [`GET ${adminOverviewRoute.url}`]: () => [
      200,
      {
        users: fleet.users.length,
        organizations: fleet.organizations.length,
        devices: fleet.devices.length,
        devices_breakdown: {
          placed: fleet.devices.filter((device) => device.is_active && device.has_keys).length,
          suspended: fleet.devices.filter((device) => !device.is_active).length,
          without_key: fleet.devices.filter((device) => device.is_active && !device.has_keys).length,
          peers_retiring: fleet.servers.reduce((sum, server) => sum + server.peers_retiring, 0),
        },
        active_devices: fleet.devices.filter((device) => device.is_connected).length,
        traffic: fleet.traffic,
      },
    ],
    [`GET ${adminUsersRoute.url}`]: (_, query) => {
      const rows = fleet.users.filter((user) => contains(user.email, query.q) || contains(user.full_name, query.q));
      const key = (query.sort ?? 'created_at') as 'email' | 'full_name' | 'created_at';
      return [
        200,
        pageOf(
          sorted(rows, (user) => user[key], query.dir),
          query,
        ),
      ];
    },
    [`GET ${adminOrganizationsRoute.url}`]: (_, query) => {
      const rows = fleet.organizations.filter(
        (org) => contains(org.name, query.q) && (!query.status || org.status === query.status),
      );
      const key = (query.sort ?? 'created_at') as 'name' | 'created_at' | 'members';
      return [
        200,
        pageOf(
          sorted(rows, (org) => org[key], query.dir),
          query,
        ),
      ];
    },
    [`POST ${suspendOrganizationRoute.url}`]: ([id], _, body) => {
      const org = fleet.organizations.find((candidate) => candidate.id === id);
      if (!org) return [404, { error: { code: 'not_found', message: 'Organization not found.' } }];
      const reason = (body as { reason: string }).reason;
      Object.assign(org, { status: 'Suspended', suspended_by_operator: true, suspension_reason: reason });
      audit('organization.suspended', org.name, { reason });
      return [200, org];
    },
    [`POST ${reactivateOrganizationRoute.url}`]: ([id]) => {
      const org = fleet.organizations.find((candidate) => candidate.id === id);
      if (!org) return [404, { error: { code: 'not_found', message: 'Organization not found.' } }];
      Object.assign(org, { status: 'Active', suspended_by_operator: false, suspension_reason: null });
      audit('organization.reactivated', org.name);
      return [200, org];
    },
    [`GET ${adminEmailsRoute.url}`]: () => [200, { emails: fleet.emails }],
    [`POST ${addAdminEmailRoute.url}`]: (_, __, body) => {
      const email = String((body as { email: string }).email).toLowerCase();
      if (fleet.emails.some((entry) => entry.email === email))
        return [409, { error: { code: 'already_exists', message: 'That address is already on the list.' } }];
      const entry: AdminEmail = {
        email,
        is_admin: true,
        role: 'admin',
        from_config: false,
        added_at: new Date().toISOString(),
      };
      fleet.emails.push(entry);
      audit('admin_email.added', email);
      return [201, entry];
    },
    [`DELETE ${removeAdminEmailRoute.url}`]: ([email]) => {
      const address = decodeURIComponent(email ?? '');
      const index = fleet.emails.findIndex((entry) => entry.email === address);
      if (index < 0) return [404, { error: { code: 'not_found', message: 'Not on the list.' } }];
      fleet.emails.splice(index, 1);
      audit('admin_email.removed', address);
      return [204, null];
    },
    // Paged by a cursor, as the gateway does: entries after the one `before` names, newest first.
    [`GET ${adminAuditRoute.url}`]: (_, query) => {
      const perPage = query.per_page ?? 25;
      const beforeId = typeof query.before === 'string' ? query.before.slice(query.before.indexOf('_') + 1) : undefined;
      const start = beforeId ? fleet.audit.findIndex((entry) => entry.id === beforeId) + 1 : 0;
      const rows = fleet.audit.slice(start, start + perPage);
      const last = rows.at(-1);
      const next = last && start + perPage < fleet.audit.length ? `${last.at}_${last.id}` : null;
      return [200, { rows, total: fleet.audit.length, per_page: perPage, next }];
    },
    [`GET ${adminDevicesRoute.url}`]: (_, query) => {
      const rows = fleet.devices.filter(
        (device) =>
          (contains(device.name, query.q) || contains(device.owner.email, query.q)) &&
          (query.node === undefined || device.node?.id === query.node) &&
          (query.org === undefined || device.organization?.id === query.org) &&
          (query.connected === undefined || device.is_connected === query.connected) &&
          (query.active === undefined || device.is_active === query.active),
      );
      const key = (query.sort ?? 'created_at') as 'name' | 'created_at';
      return [
        200,
        pageOf(
          sorted(rows, (device) => device[key], query.dir),
          query,
        ),
      ];
    },
    [`POST ${adminDeviceActionRoute.url}`]: (_, __, body) => {
      const { action, deviceId } = body as { action: string; deviceId: string };
      const device = fleet.devices.find((candidate) => candidate.id === deviceId);
      if (!device) return [404, { error: { code: 'not_found', message: 'Device not found.' } }];
      if (action === 'activate') Object.assign(device, { is_active: true, suspended_by: null });
      if (action === 'suspend')
        Object.assign(device, { is_active: false, is_connected: false, suspended_by: 'operator' });
      if (action === 'revoke_keys') Object.assign(device, { has_keys: false, is_connected: false });
      audit(`device.${action === 'revoke_keys' ? 'keys_revoked' : `${action}d`}`, device.name);
      return [200, { ok: true, device }];
    },
    [`GET ${adminTelemetryRoute.url}`]: (_, query) => {
      const rows = fleet.telemetry.filter(
        (row) =>
          (query.node === undefined || row.node?.id === query.node) &&
          (query.connected === undefined || row.is_connected === query.connected),
      );
      const key = (query.sort ?? 'ts') as 'ts' | 'rx_bytes' | 'tx_bytes' | 'latency_ms';
      const nodes = fleet.servers.map((server) => {
        const own = fleet.telemetry.filter((row) => row.node?.id === server.id);
        const latencies = own
          .filter((row) => row.is_connected && row.latency_ms !== null)
          .map((row) => row.latency_ms as number)
          .sort((a, b) => a - b);
        return {
          node: { id: server.id, name: server.name },
          devices: own.length,
          connected: own.filter((row) => row.is_connected).length,
          rx_bytes: own.reduce((sum, row) => sum + row.rx_bytes, 0),
          tx_bytes: own.reduce((sum, row) => sum + row.tx_bytes, 0),
          latency_ms: latencies.length > 0 ? latencies[Math.floor(latencies.length / 2)]! : null,
        };
      });
      return [
        200,
        {
          ...pageOf(
            sorted(rows, (row) => row[key], query.dir),
            query,
          ),
          nodes,
        },
      ];
    },
    [`GET ${adminServersRoute.url}`]: () => [200, { servers: fleet.servers }],
    [`POST ${drainServerRoute.url}`]: ([id], _, body) => {
      const server = fleet.servers.find((candidate) => candidate.id === id);
      if (!server) return [404, { error: { code: 'not_found', message: 'Server not found.' } }];
      server.draining = (body as { draining: boolean }).draining;
      audit(server.draining ? 'node.drained' : 'node.undrained', server.name);
      return [200, server];
    },
    // Issue #23: a server is added pending with a one-time enrolment; a pending one gets a new token;
    // retiring is refused while devices are on the server, as the gateway refuses it.
    [`POST ${addServerRoute.url}`]: (_, __, body) => {
      const wanted = body as RouteBody<typeof addServerRoute>;
      if (fleet.servers.some((server) => server.name === wanted.name))
        return [
          409,
          {
            error: {
              code: 'already_exists',
              message: `A server is already called ${wanted.name}.`,
              details: { field: 'name' },
            },
          },
        ];
      const server: AdminServer = {
        id: idOf(`server-${wanted.name}`),
        name: wanted.name,
        ip: wanted.endpoint.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''),
        ssh_user: wanted.ssh_user ?? null,
        ssh_port: wanted.ssh_port ?? null,
        region: wanted.region,
        city: wanted.city,
        endpoint: wanted.endpoint,
        tags: wanted.tags,
        status: 'pending',
        capacity: wanted.capacity,
        reachable: false,
        load: 'low',
        draining: false,
        peers_placed: 0,
        peers_retiring: 0,
        peers_moved: 0,
        devices_held: 0,
        peers_connected: 0,
        peers_test: 0,
        last_seen_at: null,
        agent_version: null,
        agent_started_at: null,
        resolver: null,
        metrics: null,
      };
      fleet.servers.push(server);
      return [201, { server, enrolment: enrolment() }];
    },
    [`POST ${newEnrolmentRoute.url}`]: ([id]) => {
      const server = fleet.servers.find((candidate) => candidate.id === id);
      if (!server) return [404, { error: { code: 'not_found', message: 'Server not found.' } }];
      if (server.status !== 'pending')
        return [409, { error: { code: 'conflict', message: `${server.name} is enrolled already.` } }];
      return [200, enrolment()];
    },
    [`POST ${retireServerRoute.url}`]: ([id]) => {
      const server = fleet.servers.find((candidate) => candidate.id === id);
      if (!server) return [404, { error: { code: 'not_found', message: 'Server not found.' } }];
      const devices = server.peers_placed + server.devices_held;
      if (devices > 0)
        return [
          409,
          {
            error: {
              code: 'conflict',
              message: `Drain ${server.name} first: ${devices} devices are still on it.`,
            },
          },
        ];
      Object.assign(server, { status: 'retired', reachable: false, draining: false, peers_connected: 0 });
      return [200, server];
    },
  };

  function enrolment() {
    const token = `qwe_${crypto.randomUUID().replace(/-/g, '')}${crypto.randomUUID().replace(/-/g, '').slice(0, 8)}`;
    fake.tokens.push(token);
    return {
      token,
      expires_at: new Date(Date.now() + enrolmentTokenTtlSeconds * 1000).toISOString(),
      install_command: `curl -fsSL https://quietwire.test/node-install.sh | sudo sh -s -- --token ${token}`,
    };
  }

  const handle = async (route: Route) => {
    const request = route.request();
    const url = new URL(request.url());
    const method = request.method();
    const found = routes
      .map(({ route: contract, pattern }) => ({ contract, match: pattern.exec(url.pathname) }))
      .find(({ contract, match }) => match && contract.method === method);
    if (!found?.match) {
      fake.problems.push(`${method} ${url.pathname} is not in the admin contract`);
      return json(route, 404, { error: { code: 'not_found', message: 'Not found' } });
    }
    const { contract, match } = found;
    const rawQuery = Object.fromEntries(url.searchParams);
    let body: unknown;
    try {
      body = request.postData() ? request.postDataJSON() : undefined;
    } catch {
      body = request.postData();
    }
    fake.requests.push({ method, path: url.pathname, route: contract.url, query: rawQuery, body });

    let query: Query = {};
    if (contract.querystring) {
      query = Value.Convert(contract.querystring, { ...rawQuery }) as Query;
      const problems = problemsOf(contract.querystring, query);
      if (problems.length > 0) {
        fake.problems.push(
          `${method} ${contract.url}: query ${url.search} breaks the contract: ${problems.join('; ')}`,
        );
        return json(route, 400, { error: { code: 'validation_failed', message: 'Invalid query' } });
      }
    } else if (url.search) {
      fake.problems.push(`${method} ${contract.url} takes no query, got ${url.search}`);
    }
    if (contract.body) {
      const problems = problemsOf(contract.body, body);
      if (problems.length > 0) {
        fake.problems.push(`${method} ${contract.url}: body breaks the contract: ${problems.join('; ')}`);
        return json(route, 400, { error: { code: 'validation_failed', message: 'Invalid body' } });
      }
    }
    const failure = failures.get(contract.url);
    if (failure)
      return json(route, failure.status, {
        error: {
          code: failure.code,
          message: failure.message,
          ...(failure.details ? { details: failure.details } : {}),
        },
      });

    const handler = handlers[`${method} ${contract.url}`];
    if (!handler) {
      fake.problems.push(`${method} ${contract.url} has no fake`);
      return json(route, 501, { error: { code: 'internal', message: 'Not faked' } });
    }
    const [status, answer] = handler(match.slice(1), query, body);
    const schema = contract.response[status];
    if (schema && status < 400) {
      const problems = status === 204 ? [] : problemsOf(schema, answer);
      if (problems.length > 0) {
        fake.problems.push(`${method} ${contract.url} answer breaks the contract: ${problems.join('; ')}`);
        return json(route, 500, { error: { code: 'internal', message: 'Internal error' } });
      }
    }
    if (status === 204) return route.fulfill({ status: 204 });
    return json(route, status, answer);
  };

  await page.route('**/api/admin/**', handle);
  await page.route('**/api/admin-device', handle);
  return fake;
}

/** A stable uuid from a label (tests name things, the contract wants uuids). */
export function idOf(label: string): string {
  let hash = 0x811c9dc5;
  const hex: string[] = [];
  for (let round = 0; round < 4; round += 1) {
    for (const char of `${round}:${label}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    hex.push(hash.toString(16).padStart(8, '0'));
  }
  const digits = hex.join('');
  return `${digits.slice(0, 8)}-${digits.slice(8, 12)}-4${digits.slice(13, 16)}-8${digits.slice(17, 20)}-${digits.slice(20, 32)}`;
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString();

/**
 * A fleet with enough of everything to page: 60 users, 30 organizations, 3 servers (one without
 * recent metrics, one draining with an SSH user and port), 40 devices with telemetry (one node
 * that cannot measure packets or latency), admin emails (one from configuration) and audit entries.
 */
export function demoFleet(now: number = Date.now()): AdminFleet {
  const gib = 1024 ** 3;
  const servers: AdminServer[] = [
    {
      id: idOf('server-fra'),
      name: 'fra-1',
      ip: '203.0.113.10',
      ssh_user: null,
      ssh_port: null,
      region: 'europe',
      city: 'Frankfurt',
      endpoint: '203.0.113.10:51820',
      status: 'active',
      capacity: 100,
      reachable: true,
      load: 'low',
      peers_moved: 0,
      devices_held: 0,
      agent_version: '0.1.0',
      agent_started_at: new Date(now - 86_400_000).toISOString(),
      resolver: { state: 'answering', restarts: 0 } as const,
      tags: ['eu', 'primary'],
      draining: false,
      peers_placed: 18,
      peers_retiring: 2,
      peers_connected: 11,
      peers_test: 0,
      last_seen_at: new Date(now - 20_000).toISOString(),
      metrics: {
        ts: new Date(now - 30_000).toISOString(),
        cpu: 37.46,
        mem_used: 3 * gib,
        mem_total: 8 * gib,
        disk_used: 41 * gib,
        disk_total: 80 * gib,
        load1: 0.5,
        load5: 1.234,
        load15: 2,
      },
    },
    {
      id: idOf('server-nyc'),
      name: 'nyc-1',
      ip: '198.51.100.7',
      ssh_user: 'ops',
      ssh_port: 2222,
      region: 'north-america',
      city: 'New York',
      endpoint: '198.51.100.7:51820',
      status: 'active',
      capacity: 20,
      reachable: false,
      load: 'medium',
      peers_moved: 0,
      devices_held: 0,
      agent_version: '0.1.0',
      agent_started_at: new Date(now - 3_600_000).toISOString(),
      resolver: { state: 'down', restarts: 3 } as const,
      tags: ['us'],
      draining: true,
      peers_placed: 14,
      peers_retiring: 0,
      peers_connected: 5,
      peers_test: 0,
      last_seen_at: new Date(now - 40_000).toISOString(),
      metrics: {
        ts: new Date(now - 60_000).toISOString(),
        cpu: 5,
        mem_used: 1 * gib,
        mem_total: 3 * gib,
        disk_used: 10 * gib,
        disk_total: 40 * gib,
        load1: 0.056,
        load5: 0.1,
        load15: 0.125,
      },
    },
    {
      id: idOf('server-sgp'),
      name: 'sgp-1',
      ip: '192.0.2.44',
      ssh_user: 'admin',
      ssh_port: null,
      region: 'asia',
      city: 'Singapore',
      endpoint: '192.0.2.44:51820',
      status: 'active',
      capacity: 100,
      reachable: true,
      load: 'low',
      peers_moved: 0,
      devices_held: 0,
      agent_version: '0.1.0',
      agent_started_at: new Date(now - 600_000).toISOString(),
      resolver: { state: 'off', restarts: 0 } as const,
      tags: [],
      draining: false,
      peers_placed: 8,
      peers_retiring: 0,
      peers_connected: 0,
      peers_test: 0,
      last_seen_at: new Date(now - 3_600_000).toISOString(),
      metrics: null,
    },
  ];
  const users: AdminUser[] = Array.from({ length: 60 }, (_, index) => {
    const n = String(index + 1).padStart(2, '0');
    return {
      id: idOf(`user-${n}`),
      email: `user${n}@example.test`,
      full_name: index % 7 === 3 ? null : `Person ${n}`,
      account_type: index % 5 === 0 ? 'business' : 'personal',
      role: 'client',
      is_admin: false,
      email_verified: index % 9 !== 4,
      plan: index % 3 === 0 ? 'personal' : index % 3 === 1 ? 'gaming' : null,
      organizations: index % 5 === 0 ? 1 : 0,
      is_test: false,
      created_at: day(index),
    };
  });
  const organizations: AdminOrganization[] = Array.from({ length: 30 }, (_, index) => {
    const n = String(index + 1).padStart(2, '0');
    const suspended = index === 1;
    return {
      id: idOf(`org-${n}`),
      name: `Org ${n} Ltd`,
      plan: ['business10', 'business50', 'business250'][index % 3]!,
      members: 2 + (index % 8),
      status: suspended ? 'Suspended' : 'Active',
      suspended_by_operator: suspended,
      suspension_reason: suspended ? 'Unpaid invoices since October.' : null,
      created_at: day(index * 2),
    };
  });
  const devices: AdminDevice[] = Array.from({ length: 40 }, (_, index) => {
    const n = String(index + 1).padStart(2, '0');
    const owner = users[index % users.length]!;
    const org = index % 4 === 0 ? organizations[index % organizations.length]! : null;
    const server = index === 39 ? null : servers[index % servers.length]!;
    const connected = index % 3 === 0 && index !== 39;
    return {
      id: idOf(`device-${n}`),
      name: `device-${n}`,
      platform: ['linux', 'macos', 'windows', 'ios', 'android'][index % 5]!,
      is_active: index % 10 !== 7,
      is_connected: connected,
      owner: { id: owner.id, email: owner.email, full_name: owner.full_name },
      organization: org ? { id: org.id, name: org.name } : null,
      node: server ? { id: server.id, name: server.name } : null,
      has_keys: index !== 13,
      suspended_by: index % 10 === 7 ? ('operator' as const) : null,
      latest_handshake: connected ? new Date(now - 60_000).toISOString() : null,
      created_at: day(index),
    };
  });
  const telemetry: AdminTelemetryRow[] = devices
    .filter((device) => device.node)
    .map((device, index) => {
      const sgp = device.node?.id === idOf('server-sgp');
      return {
        device_id: device.id,
        device_name: device.name,
        node: device.node,
        ts: new Date(now - index * 60_000).toISOString(),
        rx_packets: sgp ? null : 1_000 + index * 37,
        tx_packets: sgp ? null : 900 + index * 29,
        rx_bytes: 1_048_576 * (index + 1),
        tx_bytes: 524_288 * (index + 2),
        latency_ms: sgp ? null : 10 + index * 1.5,
        endpoint: index % 6 === 5 ? null : `198.51.${index}.0/24`,
        is_connected: device.is_connected,
      };
    });
  const emails: AdminEmail[] = [
    { email: operatorEmail, is_admin: true, role: 'admin', from_config: true, added_at: day(0) },
    { email: 'second-admin@quietwire.test', is_admin: true, role: 'admin', from_config: false, added_at: day(3) },
  ];
  const audit: AdminAuditEntry[] = [
    {
      id: idOf('audit-1'),
      at: day(5),
      actor_id: idOf('operator'),
      actor_email: operatorEmail,
      kind: 'admin_email.added',
      target: 'second-admin@quietwire.test',
      details: {},
    },
  ];
  const hour0 = Math.floor(now / 3_600_000) * 3_600_000 - 23 * 3_600_000;
  const traffic = Array.from({ length: 24 }, (_, index) => ({
    hour: new Date(hour0 + index * 3_600_000).toISOString(),
    rx_bytes: 50 * 1_048_576 + index * 3 * 1_048_576,
    tx_bytes: 20 * 1_048_576 + ((index * 7) % 11) * 1_048_576,
  }));
  return { users, organizations, devices, telemetry, servers, emails, audit, traffic };
}
