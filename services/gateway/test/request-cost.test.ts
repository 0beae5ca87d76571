/**
 * What one request of each list costs in round trips (issue #24: "the number of bus round trips
 * and queries per request, one each for a list"), counted where they leave the process
 * (`countRoundTrips`, bench/lib/round-trips.ts): every RPC asked or forwarded, every statement
 * handed to a Postgres connection by any service of the stack (all of them run in this process). Each route is asked alone ten
 * times and the fewest seen is its own: a service's background loop may add a query now and then,
 * and the device list asks telemetry for its traffic once a second at most (`DeviceTrafficCache`).
 * The same counts as `bench/profile-api.ts <route> 3 count`, kept here so a change that adds a
 * hop or a statement to a list fails.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../../bench/api.bench.ts';
import { countRoundTrips, type RoundTrips } from '../../../bench/lib/round-trips.ts';
import { deviceServices } from './support/products.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
let routes: Awaited<ReturnType<typeof routesOf>>;
let trips: ReturnType<typeof countRoundTrips> | undefined;

beforeAll(async () => {
  stack = await startStack({
    label: 'requestcost',
    adminEmails: ['ops@bench.test'],
    extra: (publicUrl, mailUrl) => deviceServices(publicUrl, mailUrl, randomBytes(32).toString('base64')),
  });
  // A smaller organization than the bench's thousand: the page is still the second of 50.
  routes = await routesOf(stack, 120);
  trips = countRoundTrips();
});

afterAll(async () => {
  trips?.stop();
  await stack?.stop();
});

/** The fewest RPCs and statements one request of the route took, of ten asked one after another. */
async function fewestFor(path: string, token: string): Promise<RoundTrips> {
  const seen: RoundTrips[] = [];
  for (let i = 0; i < 10; i++) {
    trips!.reset();
    const answer = await stack.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
    expect(answer.statusCode).toBe(200);
    seen.push({ ...trips!.counted });
  }
  return {
    rpcs: Math.min(...seen.map((one) => one.rpcs)),
    queries: Math.min(...seen.map((one) => one.queries)),
  };
}

describe('what one request of each list costs', () => {
  it('a list is one RPC and one statement; an organization’s page two statements; the console’s list two of each', async () => {
    const [devices, overview, orgPage, consoleList] = routes;
    // The gateway forwards to provisioning, which reads the person's devices (the node and the
    // retiring key joined); telemetry's traffic comes from the second-old cache.
    expect(await fewestFor(devices!.path, devices!.token)).toEqual({ rpcs: 1, queries: 1 });
    // The Overview counts from the device rows alone.
    expect(await fewestFor(overview!.path, overview!.token)).toEqual({ rpcs: 1, queries: 1 });
    // The membership with the quota's facts, then the page.
    expect(await fewestFor(orgPage!.path, orgPage!.token)).toEqual({ rpcs: 1, queries: 2 });
    // The page with its total, then identity's directory of its owners and organizations.
    expect(await fewestFor(consoleList!.path, consoleList!.token)).toEqual({ rpcs: 2, queries: 2 });
  });
});
