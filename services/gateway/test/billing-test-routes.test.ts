import { describe, expect, it } from 'vitest';
import type { HttpApp, RpcClient } from '@qw/platform';
import { createHttpApp, createLogger, loadConfig } from '@qw/platform';
import { billingRouteSettings, registerBillingRoutes } from '../src/billing/billing.routes.ts';
import { GatewayConfigSchema } from '../src/config.ts';
import { testCallerKeys } from '@qw/testkit';

const testRoutes = [
  { method: 'GET', url: '/api/billing/test-checkout/:id' },
  { method: 'POST', url: '/api/billing/test-checkout/:id/pay' },
  { method: 'POST', url: '/api/billing/test-portal/cancel' },
] as const;

function gatewayConfig(env: Record<string, string>) {
  return loadConfig(GatewayConfigSchema, {
    NATS_URL: 'nats://127.0.0.1:4222',
    JWT_SECRET: 'j'.repeat(32),
    ADDRESS_HASH_KEY: 'a'.repeat(32),
    CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    ...env,
  });
}

/** The billing routes alone on a bare app, as buildGateway registers them for this configuration. */
async function billingRoutesFor(env: Record<string, string>): Promise<HttpApp> {
  const app = createHttpApp({ logger: createLogger({ service: 'gateway', level: 'silent' }), readiness: [] });
  // No request reaches a service in these tests: only which routes exist is looked at.
  registerBillingRoutes(app, { rpc: {} as RpcClient, ...billingRouteSettings(gatewayConfig(env)) });
  await app.ready();
  return app;
}

describe('the test payment routes', () => {
  it('do not exist in production', async () => {
    const app = await billingRoutesFor({ NODE_ENV: 'production' });
    for (const route of testRoutes) expect(app.hasRoute(route), `${route.method} ${route.url}`).toBe(false);
    expect(app.hasRoute({ method: 'POST', url: '/api/checkout' })).toBe(true);
    const page = await app.inject({ method: 'GET', url: '/api/billing/test-checkout/cs_test_1' });
    expect(page.statusCode).toBe(404);
    await app.close();
  });

  it('exist in production only with ALLOW_TEST_PAYMENTS=true (a demo), and outside production', async () => {
    const envs: Array<Record<string, string>> = [
      { NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true' },
      { NODE_ENV: 'development' },
    ];
    for (const env of envs) {
      const app = await billingRoutesFor(env);
      for (const route of testRoutes) expect(app.hasRoute(route), `${route.method} ${route.url}`).toBe(true);
      await app.close();
    }
  });

  it('take the address key from the gateway configuration', () => {
    const config = gatewayConfig({ NODE_ENV: 'production' });
    expect(billingRouteSettings(config)).toEqual({ addressHashKey: config.ADDRESS_HASH_KEY, testPayments: false });
    expect(config.ALLOW_TEST_PAYMENTS).toBe(false);
  });
});
