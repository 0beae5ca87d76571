import { Type, type Static } from 'typebox';
import { commonEnv, databaseEnv, httpEnv } from '@qw/platform/config';

export const BillingConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...httpEnv(8082),
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: '^(sk|rk)_' , description: 'set: payments through Stripe; unset: the local test provider' })),
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_' })),
  STRIPE_API_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'another Stripe API address (tests use a local stand-in)' })),
  BILLING_TEST_CLOCK: Type.Boolean({ default: false, description: 'lets the advance-clock RPC move the test provider clock (never in production)' }),
});
export type BillingConfig = Static<typeof BillingConfigSchema>;
