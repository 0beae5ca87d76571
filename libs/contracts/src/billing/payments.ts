/**
 * The local test provider sells plans for a test card, so it may take payments only outside
 * production, or in a production-like demo that says so with ALLOW_TEST_PAYMENTS=true. Billing
 * refuses to start otherwise and the gateway registers the test provider's routes only then.
 */
export function testPaymentsAllowed(env: { NODE_ENV?: string | undefined; ALLOW_TEST_PAYMENTS?: boolean | undefined }) {
  return env.NODE_ENV !== 'production' || env.ALLOW_TEST_PAYMENTS === true;
}
