import { AppError } from '@qw/contracts';
import { type QueryExecutorProvider, sql } from 'kysely';

/** At most `max` events per key within `windowSeconds`. */
export type RateLimit = { max: number; windowSeconds: number };

/**
 * Rate limits count rows in the service's own `rate_events` table (every schema has one, see the
 * platform migrations), keyed by what is limited: `signup:address:<hmac>`, `devices:<user id>`.
 * Keys never hold an address or an e-mail in clear; callers hash them first.
 */
type Db = QueryExecutorProvider;

/** Seconds until the key may act again, or 0 when it is under its limit. */
export async function retryAfterSeconds(db: Db, key: string, limit: RateLimit, now = new Date()): Promise<number> {
  const result = await sql<{ n: number; oldest: Date | null }>`
    select count(*)::int as n, min(at) as oldest from (
      select at from rate_events
      where key = ${key} and at > ${now}::timestamptz - make_interval(secs => ${limit.windowSeconds})
      order by at desc limit ${limit.max}
    ) recent`.execute(db);
  const row = result.rows[0];
  if (!row || row.n < limit.max || !row.oldest) return 0;
  const freeAt = new Date(row.oldest).getTime() + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
}

export async function recordRateEvent(db: Db, key: string, at = new Date()): Promise<void> {
  await sql`insert into rate_events (key, at) values (${key}, ${at})`.execute(db);
}

export async function clearRateEvents(db: Db, key: string): Promise<void> {
  await sql`delete from rate_events where key = ${key}`.execute(db);
}

/**
 * Refuses with 429 `rate_limited` (the wait in `details.retry_after_seconds`) when any of the
 * keys is at its limit; otherwise records one event for each and lets the caller go on.
 */
export async function takeRateLimited(
  db: Db,
  checks: Array<{ key: string; limit: RateLimit }>,
  message: (wait: string) => string,
): Promise<void> {
  let wait = 0;
  for (const { key, limit } of checks) wait = Math.max(wait, await retryAfterSeconds(db, key, limit));
  if (wait > 0) throw new AppError('rate_limited', message(minutesText(wait)), { retry_after_seconds: wait });
  for (const { key } of checks) await recordRateEvent(db, key);
}

/** Rows older than a day tell nothing any more (no limit has a longer window). */
export async function pruneRateEvents(db: Db): Promise<number> {
  const result = await sql`delete from rate_events where at < now() - interval '1 day'`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export function minutesText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? 'a minute' : `${minutes} minutes`;
}

/** The longest wait any of the keys must sit out (0 when every one is under its limit). Records nothing. */
export async function longestRetryAfter(
  db: Db,
  checks: Array<{ key: string; limit: RateLimit }>,
  now = new Date(),
): Promise<number> {
  let wait = 0;
  for (const { key, limit } of checks) wait = Math.max(wait, await retryAfterSeconds(db, key, limit, now));
  return wait;
}

/**
 * Refuses with 429 `rate_limited` like `takeRateLimited`, but records nothing: for limits that
 * count only failures, which the caller records once it knows (and clears after a success).
 */
export async function refuseIfRateLimited(
  db: Db,
  checks: Array<{ key: string; limit: RateLimit }>,
  message: (wait: string) => string,
): Promise<void> {
  const wait = await longestRetryAfter(db, checks);
  if (wait > 0) throw new AppError('rate_limited', message(minutesText(wait)), { retry_after_seconds: wait });
}
