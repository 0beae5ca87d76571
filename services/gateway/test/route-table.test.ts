import { describe, expect, it } from 'vitest';
import { httpRoutes, testProviderRoutes, type HttpRoute } from '@qw/contracts';
import { createLogger, loadConfig, type BusConnection, type RpcClient } from '@qw/platform';
import { testCallerKeys } from '@qw/testkit';
import { buildGateway } from '../src/app.ts';
import { GatewayConfigSchema } from '../src/config.ts';
import { routeTable } from '../src/http/add-route.ts';

/** The gateway as configured, built without a bus: only which routes it has is looked at. */
async function gatewayRoutes(env: Record<string, string>) {
  const config = loadConfig(GatewayConfigSchema, {
    NATS_URL: 'nats://127.0.0.1:1',
    JWT_SECRET: 'j'.repeat(40),
    ADDRESS_HASH_KEY: 'a'.repeat(40),
    CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    WEB_DIST: '/nonexistent',
    ...env,
  });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const app = await buildGateway(config, { bus: {} as BusConnection, rpc: {} as RpcClient, logger });
  await app.ready();
  const api = routeTable(app).filter(
    (route) => route.url.startsWith('/api/') && !route.url.startsWith('/api/docs') && route.method !== 'HEAD',
  );
  await app.close();
  return api;
}

const key = (route: { method: string; url: string }) => `${route.method} ${route.url}`;

describe('the route table', () => {
  it('serves exactly the routes of libs/contracts/src/http, each from its contract', async () => {
    const served = await gatewayRoutes({ NODE_ENV: 'test' });
    expect(served.map(key).sort()).toEqual(httpRoutes.map(key).sort());
    for (const route of served) {
      const contract = httpRoutes.find((c) => key(c) === key(route)) as HttpRoute;
      expect(route.contract, key(route)).toBe(contract);
    }
  });

  it('gives every route a response schema for each success, the contract’s own objects, none declared inline', async () => {
    for (const route of await gatewayRoutes({ NODE_ENV: 'test' })) {
      const contract = route.contract!;
      const successes = Object.keys(contract.response).filter((status) => Number(status) < 400);
      expect(successes.length, `${key(route)} declares no answer`).toBeGreaterThan(0);
      for (const status of Object.keys(route.response ?? {})) {
        if (status === '4xx' || status === '5xx') continue;
        expect(route.response?.[status], `${key(route)} ${status}`).toBe(contract.response[Number(status)]);
      }
      for (const status of successes) expect(route.response?.[status], `${key(route)} ${status}`).toBeDefined();
    }
  });

  it('has no test-payment routes in production', async () => {
    const served = (await gatewayRoutes({ NODE_ENV: 'production' })).map(key);
    for (const route of testProviderRoutes) expect(served).not.toContain(key(route));
    expect(served).toContain('POST /api/checkout');
  });
});
