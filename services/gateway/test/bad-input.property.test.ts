import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { httpRoutes, type HttpRoute } from '@qw/contracts';
import { generateKeyPair } from '@qw/wireguard';
import { Client, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * Property: whatever arrives at a route (any JSON body, any path segment, any query), the answer
 * is never a 5xx, a refusal is a clear error (a stable code and a message a person can read),
 * and a refusal writes nothing. Run signed in (the deepest path into the services) and anonymous.
 */
let stack: Stack;
let person: Client;
let anonymous: Client;
let orgOwner: Client;
let orgId: string;

/** What a request could write, across the services: row counts, and a digest of what can be edited. */
async function footprint(): Promise<Record<string, string>> {
  const one = async (db: Kysely<unknown>, query: ReturnType<typeof sql<{ v: string }>>) =>
    (await query.execute(db)).rows[0]?.v ?? '';
  const { identity, billing, provisioning } = stack.services;
  return {
    users: await one(identity!.db, sql`select count(*)::text as v from users`),
    profiles: await one(
      identity!.db,
      sql`select md5(string_agg(coalesce(full_name, '') || coalesce(avatar_url, ''), ',' order by id)) as v from profiles`,
    ),
    devices: await one(
      provisioning!.db,
      sql`select md5(string_agg(name || is_active::text || coalesce(public_key, ''), ',' order by id)) as v from devices`,
    ),
    checkouts: await one(billing!.db, sql`select count(*)::text as v from checkout_sessions`),
    subscriptions: await one(
      billing!.db,
      sql`select md5(string_agg(status || plan_code || coalesce(pending_plan_code, ''), ',' order by id)) as v
          from subscriptions`,
    ),
    invoices: await one(billing!.db, sql`select count(*)::text as v from invoices`),
    contact: await one(identity!.db, sql`select count(*)::text as v from contact_messages`),
    organizations: await one(
      identity!.db,
      sql`select md5(string_agg(name || plan || is_active::text, ',' order by id)) as v from organizations`,
    ),
    members: await one(
      identity!.db,
      sql`select md5(string_agg(org_id::text || user_id::text || role, ',' order by org_id, user_id)) as v from org_members`,
    ),
    invitations: await one(
      identity!.db,
      sql`select md5(string_agg(id::text || coalesce(accepted_at::text, '') || coalesce(revoked_at::text, ''), ','
          order by id)) as v from invitations`,
    ),
    audit: await one(identity!.db, sql`select count(*)::text as v from audit_log`),
  };
}

const segment = fc.oneof(fc.string({ maxLength: 80 }), fc.uuid(), fc.constantFrom('..', '%00', ' ', 'null', '-1'));

function bodyFor(route: HttpRoute) {
  const keys = Object.keys((route.body as { properties?: object } | undefined)?.properties ?? {});
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom(...keys, 'extra', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 6,
    }),
  );
}

function queryFor(route: HttpRoute) {
  const keys = Object.keys((route.querystring as { properties?: object } | undefined)?.properties ?? {});
  return fc.dictionary(fc.constantFrom(...keys, 'x'), fc.string({ maxLength: 300 }), { maxKeys: 4 });
}

function urlFor(route: HttpRoute, params: string[], query: Record<string, string>): string {
  let index = 0;
  const path = route.url.replace(/:[A-Za-z_]+/g, () => encodeURIComponent(params[index++] ?? ''));
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

beforeAll(async () => {
  stack = await startStack({ label: 'badinput', extra: deviceServices });
  await registerTestNode(stack, 'bad-input-node');
  person = await customerWithPlan(stack, 'fuzz@example.com');
  anonymous = new Client(stack.app, '198.51.100.99');
  orgOwner = await customerWithPlan(stack, 'fuzz-org@example.com', 'business10');
  orgId = await ownOrganization(orgOwner);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

describe('bad input on every route', () => {
  for (const route of httpRoutes) {
    it(`${route.method} ${route.url}: no 5xx, a clear error, nothing written`, async () => {
      const before = await footprint();
      let wrote = false;
      await fc.assert(
        fc.asyncProperty(
          fc.array(segment, { minLength: 2, maxLength: 2 }),
          queryFor(route),
          bodyFor(route),
          fc.boolean(),
          async (params, query, body, signedIn) => {
            const client = signedIn ? person : anonymous;
            const response = await client.call(
              route.method,
              urlFor(route, params, query),
              route.method === 'GET' ? undefined : body,
            );
            expect(response.statusCode, `${route.method} ${route.url} → ${response.body.slice(0, 200)}`).toBeLessThan(
              500,
            );
            if (response.statusCode >= 400) {
              expect(response.data?.error?.code, response.body.slice(0, 200)).toMatch(/^[a-z_]+$/);
              expect(String(response.data?.error?.message ?? '').length).toBeGreaterThan(3);
            } else wrote = true;
          },
        ),
        { numRuns: 25, seed: 4242 },
      );
      // Every answer a refusal: nothing anywhere changed.
      if (!wrote) expect(await footprint()).toEqual(before);
    }, 60_000);
  }
});

/**
 * One request at a time cannot find what depends on an earlier one: a value already taken. Here
 * each run is a sequence of requests drawing public keys, names and device ids from small pools
 * shared by every request (and run), so a later request reuses what an earlier one stored.
 */
describe('bad input across requests: values reused from one request to the next', () => {
  it('never answers a 5xx, and every refusal is a clear error', async () => {
    const keys = [generateKeyPair().publicKey, generateKeyPair().publicKey, 'not-a-key'];
    const names = ['Laptop', '  Laptop ', 'x'.repeat(65), ''];
    /** Devices made so far, by whom: later requests act on them. */
    const made: Array<{ id: string; by: Client }> = [];
    const request = fc.record({
      kind: fc.constantFrom('personal', 'organization', 'key', 'rename'),
      key: fc.option(fc.constantFrom(...keys), { nil: undefined }),
      name: fc.constantFrom(...names),
      target: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 2, maxLength: 6 }), async (requests) => {
        for (const { kind, key, name, target } of requests) {
          const device = made.length > 0 ? made[target % made.length]! : undefined;
          const keyBody = key === undefined ? {} : { public_key: key };
          const [client, method, url, body] =
            kind === 'personal' || !device
              ? ([person, 'POST', '/api/devices', { name, platform: 'linux', ...keyBody }] as const)
              : kind === 'organization'
                ? ([orgOwner, 'POST', `/api/orgs/${orgId}/devices`, { name, ...keyBody }] as const)
                : kind === 'key'
                  ? ([device.by, 'POST', `/api/devices/${device.id}/key`, keyBody] as const)
                  : ([device.by, 'PATCH', `/api/devices/${device.id}`, { name }] as const);
          const response = await client.call(method, url, body);
          const what = `${method} ${url} ${JSON.stringify(body)} → ${response.body.slice(0, 200)}`;
          expect(response.statusCode, what).toBeLessThan(500);
          if (response.statusCode >= 400) {
            expect(response.data?.error?.code, what).toMatch(/^[a-z_]+$/);
            expect(String(response.data?.error?.message ?? '').length).toBeGreaterThan(3);
          } else if (response.statusCode === 201) made.push({ id: response.data.device.id, by: client });
        }
      }),
      { numRuns: 15, seed: 4242 },
    );
  }, 120_000);
});
