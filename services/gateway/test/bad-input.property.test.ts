import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { httpRoutes, type HttpRoute } from '@qw/contracts';
import { Client, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';

/**
 * Property: whatever arrives at a route (any JSON body, any path segment, any query), the answer
 * is never a 5xx, a refusal is a clear error (a stable code and a message a person can read),
 * and a refusal writes nothing. Run signed in (the deepest path into the services) and anonymous.
 */
let stack: Stack;
let person: Client;
let anonymous: Client;

/** What a request could write, across the services: row counts, and a digest of what can be edited. */
async function footprint(): Promise<Record<string, string>> {
  const one = async (db: Kysely<any>, query: ReturnType<typeof sql<{ v: string }>>) =>
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
