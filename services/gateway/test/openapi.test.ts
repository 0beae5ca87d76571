import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { httpRoutes } from '@qw/contracts';
import { createLogger, loadConfig, type BusConnection, type HttpApp, type RpcClient } from '@qw/platform';
import { testCallerKeys } from '@qw/testkit';
import { buildGateway } from '../src/app.ts';
import { GatewayConfigSchema } from '../src/config.ts';
import { openApiSecurity } from '../src/http/route-access.ts';

/**
 * The OpenAPI document the gateway serves, as a generated client or a reviewer reads it: Redocly's
 * `recommended` rules find nothing, and each operation states its route's contract (name, access).
 * Redocly's rules ship inside the package: the lint runs offline.
 */
let app: HttpApp;
let source: string;

beforeAll(async () => {
  const config = loadConfig(GatewayConfigSchema, {
    NODE_ENV: 'test',
    NATS_URL: 'nats://127.0.0.1:1',
    JWT_SECRET: 'j'.repeat(40),
    ADDRESS_HASH_KEY: 'a'.repeat(40),
    CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    PUBLIC_URL: 'https://vpn.quietwire.test',
    WEB_DIST: '/nonexistent',
  });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  // Only the document is read: no route is called, so no bus is needed.
  app = await buildGateway(config, { bus: {} as BusConnection, rpc: {} as RpcClient, logger });
  const response = await app.inject({ method: 'GET', url: '/api/docs/json' });
  expect(response.statusCode).toBe(200);
  source = response.body;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

type Operation = { operationId?: string; security?: unknown };

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    // `info-license` is off: the API is this service's own, offered under no licence, and a
    // made-up one would be false (docs/architecture.md, the gateway).
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const found = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(found).toEqual([]);
  }, 60_000);

  it('names every route by its contract and states its access', () => {
    const document = JSON.parse(source) as {
      servers?: Array<{ url: string }>;
      paths: Record<string, Record<string, Operation>>;
    };
    expect(document.servers).toEqual([expect.objectContaining({ url: 'https://vpn.quietwire.test' })]);
    for (const route of httpRoutes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
      expect(operation?.operationId, `${route.method} ${route.url}`).toBe(route.operationId);
      expect(operation?.security, `${route.method} ${route.url}`).toEqual(openApiSecurity(route.access));
    }
    expect(new Set(httpRoutes.map((route) => route.operationId)).size).toBe(httpRoutes.length);
  });
});
