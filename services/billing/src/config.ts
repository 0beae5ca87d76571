import { Type, type Static } from 'typebox';
import { testPaymentsAllowed } from '@qw/contracts';
import {
  callerTokenEnv,
  commonEnv,
  ConfigError,
  databaseEnv,
  httpEnv,
  loadConfig,
  type ConfigRule,
} from '@qw/platform/config';

export const BillingConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...callerTokenEnv,
  ...httpEnv(8082),
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  STRIPE_SECRET_KEY: Type.Optional(
    Type.String({ pattern: '^(sk|rk)_', description: 'set: payments through Stripe; unset: the local test provider' }),
  ),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_' })),
  STRIPE_API_URL: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'another Stripe API address (tests use a local stand-in)' }),
  ),
  ALLOW_TEST_PAYMENTS: Type.Boolean({
    default: false,
    description: 'production without Stripe: lets the local test provider take payments (demos only)',
  }),
  BILLING_TEST_CLOCK: Type.Boolean({
    default: false,
    description: "lets the advance-clock and start-clock RPCs move the test provider's clocks (never in production)",
  }),
});
export type BillingConfig = Static<typeof BillingConfigSchema>;

export type PaymentSetup = {
  NODE_ENV?: string | undefined;
  STRIPE_SECRET_KEY?: string | undefined;
  STRIPE_WEBHOOK_SECRET?: string | undefined;
  ALLOW_TEST_PAYMENTS?: boolean | undefined;
};

/** What keeps this payment setup from running, one line per problem (none: it may run). */
export function paymentSetupProblems(setup: PaymentSetup): string[] {
  if (!setup.STRIPE_SECRET_KEY) {
    return testPaymentsAllowed(setup)
      ? []
      : [
          'STRIPE_SECRET_KEY is required in production: without it the local test provider would sell plans for a test card (ALLOW_TEST_PAYMENTS=true allows that for a demo)',
        ];
  }
  if (setup.NODE_ENV === 'production' && !setup.STRIPE_WEBHOOK_SECRET)
    return [
      'STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY in production: payments are confirmed by webhooks',
    ];
  return [];
}

/** The payment setup as a configuration rule, for the service process. */
export const paymentSetupRule: ConfigRule<BillingConfig> = (config) =>
  paymentSetupProblems(config).join('; ') || undefined;

/** The environment checked variable by variable, then as a payment setup; a ConfigError lists what is wrong. */
export function loadBillingConfig(env: Record<string, string | undefined> = process.env): BillingConfig {
  const config = loadConfig(BillingConfigSchema, env);
  const problems = paymentSetupProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
