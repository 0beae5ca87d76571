import { describe, expect, it } from 'vitest';
import { testPaymentsAllowed } from '@qw/contracts';
import { ConfigError } from '@qw/platform/config';
import { spawnTsProcess, testCallerKeys } from '@qw/testkit';
import { billingService } from '../src/app.ts';
import { loadBillingConfig } from '../src/config.ts';

const base = {
  NATS_URL: 'nats://127.0.0.1:4222',
  NATS_PASSWORD: 'a-password-long-enough',
  DATABASE_URL: 'postgres://qw_billing@127.0.0.1:5432/quietwire',
  CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
};

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('which payment provider may run', () => {
  it('the local test provider takes payments outside production, and in production only with the demo flag', () => {
    expect(testPaymentsAllowed({ NODE_ENV: 'development' })).toBe(true);
    expect(testPaymentsAllowed({ NODE_ENV: 'test' })).toBe(true);
    expect(testPaymentsAllowed({ NODE_ENV: 'production' })).toBe(false);
    expect(testPaymentsAllowed({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: false })).toBe(false);
    expect(testPaymentsAllowed({ NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: true })).toBe(true);
  });

  it('production without STRIPE_SECRET_KEY is a configuration error unless ALLOW_TEST_PAYMENTS is set', () => {
    const problems = problemsOf(() => loadBillingConfig({ ...base, NODE_ENV: 'production' }));
    expect(problems).toEqual([
      'STRIPE_SECRET_KEY is required in production: without it the local test provider would sell plans for a test card (ALLOW_TEST_PAYMENTS=true allows that for a demo)',
    ]);
    expect(
      problemsOf(() => loadBillingConfig({ ...base, NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'false' })),
    ).toHaveLength(1);
    const demo = loadBillingConfig({ ...base, NODE_ENV: 'production', ALLOW_TEST_PAYMENTS: 'true' });
    expect(demo.ALLOW_TEST_PAYMENTS).toBe(true);
    expect(loadBillingConfig({ ...base, NODE_ENV: 'development' }).ALLOW_TEST_PAYMENTS).toBe(false);
  });

  it('production with Stripe also needs the webhook secret, which confirms payments', () => {
    expect(
      problemsOf(() => loadBillingConfig({ ...base, NODE_ENV: 'production', STRIPE_SECRET_KEY: 'sk_live_x' })),
    ).toEqual([
      'STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY in production: payments are confirmed by webhooks',
    ]);
    const stripe = loadBillingConfig({
      ...base,
      NODE_ENV: 'production',
      STRIPE_SECRET_KEY: 'sk_live_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
    });
    expect(stripe.STRIPE_SECRET_KEY).toBe('sk_live_x');
  });

  it('the service definition refuses the same setup, whoever builds it', () => {
    expect(() =>
      billingService({ PUBLIC_URL: 'https://vpn.example', BILLING_TEST_CLOCK: false, NODE_ENV: 'production' }),
    ).toThrow(ConfigError);
    expect(() =>
      billingService({
        PUBLIC_URL: 'https://vpn.example',
        BILLING_TEST_CLOCK: false,
        NODE_ENV: 'production',
        ALLOW_TEST_PAYMENTS: true,
      }),
    ).not.toThrow();
  });

  it('the billing process exits with the configuration exit code and names the variable', async () => {
    const process = await spawnTsProcess('billing', 'services/billing/src/main.ts', {
      ...base,
      NODE_ENV: 'production',
    });
    const code = await new Promise<number | null>((resolve) => process.child.once('exit', (exit) => resolve(exit)));
    expect(code).toBe(78);
    expect(process.output()).toContain('STRIPE_SECRET_KEY is required in production');
  });
});
