/**
 * The wait before applying a stored Stripe event again after its n-th failed attempt: 1 s doubling,
 * capped at an hour. Never given up: a payment Stripe told us about must end up in the ledger, so
 * an event that keeps failing keeps being retried (and logged) until someone fixes the cause.
 */
export function webhookRetryDelaySeconds(attempts: number): number {
  return Math.min(2 ** Math.max(0, attempts - 1), 3600);
}

/** From this many failed attempts on, each failure is logged as an error rather than a warning. */
export const webhookAlarmAttempts = 8;
