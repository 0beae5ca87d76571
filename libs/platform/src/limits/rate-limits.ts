import { AppError } from '@qw/contracts';
import { sql } from 'kysely';
import type { PlatformDb } from '../db/platform-tables.ts';
import { lockName } from '../db/transaction-lock.ts';

/** At most `max` events per key within `windowSeconds`. */
export type RateLimit = { max: number; windowSeconds: number };

export type RateCheck = { key: string; limit: RateLimit };

/** Checks that refuse in their own words (`message` gets the wait as text, "a minute", "12 minutes"). */
export type RateGroup = { checks: RateCheck[]; message: (wait: string) => string };

/** The events one take recorded, to give back when the attempt turns out not to count. */
export type RateTaken = { seqs: string[] };

/**
 * Rate limits count rows in the service's own `rate_events` table (every schema has one, see the
 * platform migrations), keyed by what is limited: `signup:address:<hmac>`, `devices:<user id>`.
 * Keys never hold an address or an e-mail in clear; callers hash them first.
 *
 * Checking and counting are one step: a take locks its keys (a transaction-scoped advisory lock
 * per key), reads the window and records, so parallel requests queue on the key instead of all
 * reading the same count before any of them records. Given a transaction, the take happens in it
 * and its locks last until it ends, so the count others see is the committed one.
 */
type Db = PlatformDb;

/** Seconds until the key may act again, or 0 when it is under its limit. Reads only. */
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

/** Records one event without checking: for tests and for counts no limit reads in the same step. */
export async function recordRateEvent(db: Db, key: string, at = new Date()): Promise<void> {
  await sql`insert into rate_events (key, at) values (${key}, ${at})`.execute(db);
}

export async function clearRateEvents(db: Db, key: string): Promise<void> {
  await sql`delete from rate_events where key = ${key}`.execute(db);
}

/** Runs `work` holding the keys' locks: in the caller's transaction, or in one of its own. */
async function underKeyLocks<T>(db: Db, keys: readonly string[], work: (tx: Db) => Promise<T>): Promise<T> {
  const locked = async (tx: Db) => {
    // Sorted, so two takes of the same keys never wait on each other crosswise.
    for (const key of [...new Set(keys)].sort()) await lockName(tx, `rate:${key}`);
    return work(tx);
  };
  return db.isTransaction ? locked(db) : db.transaction().execute(locked);
}

/**
 * One atomic take: when no group is at its limit, records one event per distinct key and answers
 * them; otherwise records nothing and answers the first group at its limit (in the order given)
 * with its longest wait.
 */
async function take(
  db: Db,
  groups: readonly RateGroup[],
  settleMs = 0,
): Promise<{ taken: RateTaken } | { refused: RateGroup; wait: number; settling: boolean }> {
  const keys = [...new Set(groups.flatMap((group) => group.checks.map((check) => check.key)))];
  return underKeyLocks(db, keys, async (tx) => {
    // The time is read after the locks: an earlier take that committed meanwhile is inside the window.
    const now = new Date();
    for (const group of groups) {
      let wait = 0;
      for (const { key, limit } of group.checks) wait = Math.max(wait, await retryAfterSeconds(tx, key, limit, now));
      // Whether the events that refuse it may still be attempts in flight: read under the same locks,
      // so none of them can be given back between the count and this look.
      if (wait > 0)
        return { refused: group, wait, settling: settleMs > 0 && (await hasRecentEvents(tx, keys, settleMs)) };
    }
    if (keys.length === 0) return { taken: { seqs: [] } };
    const rows = await sql<{ seq: string }>`
      insert into rate_events (key, at) select unnest(${keys}::text[]), ${now}::timestamptz
      returning seq::text as seq`.execute(tx);
    return { taken: { seqs: rows.rows.map((row) => row.seq) } };
  });
}

function refusal(group: RateGroup, wait: number): AppError {
  return new AppError('rate_limited', group.message(minutesText(wait)), { retry_after_seconds: wait });
}

/**
 * Refuses with 429 `rate_limited` (the wait in `details.retry_after_seconds`) when any of the
 * keys is at its limit, recording nothing; otherwise records one event for each key, in the same
 * step, and lets the caller go on.
 */
export async function takeRateLimited(
  db: Db,
  checks: RateCheck[],
  message: (wait: string) => string,
  options: TakeOptions = {},
): Promise<RateTaken> {
  return takeRateLimits(db, [{ checks, message }], options);
}

/**
 * `settleMs`, for limits that count only failures (taken before the attempt, given back after a
 * success): a take refused while the keys have events younger than this asks again until they are
 * older, or given back, so attempts in flight that turn out right do not refuse the ones beside
 * them. A key whose failures are settled is refused at once.
 */
export type TakeOptions = { settleMs?: number };

const settlePollMs = 50;

/** Whether any of the keys has an event younger than `ms`: an attempt that may still be in flight. */
async function hasRecentEvents(db: Db, keys: readonly string[], ms: number): Promise<boolean> {
  const result = await sql<{ recent: boolean }>`
    select exists(
      select 1 from rate_events where key = any(${keys}::text[]) and at > now() - make_interval(secs => ${ms / 1000})
    ) as recent`.execute(db);
  return result.rows[0]?.recent === true;
}

/** Like `takeRateLimited`, for limits that refuse in different words: the first group at its limit answers. */
export async function takeRateLimits(
  db: Db,
  groups: readonly RateGroup[],
  options: TakeOptions = {},
): Promise<RateTaken> {
  const settleMs = options.settleMs ?? 0;
  const deadline = Date.now() + settleMs;
  for (;;) {
    const outcome = await take(db, groups, settleMs);
    if ('taken' in outcome) return outcome.taken;
    if (Date.now() >= deadline || !outcome.settling) throw refusal(outcome.refused, outcome.wait);
    await new Promise((resolve) => setTimeout(resolve, settlePollMs));
  }
}

/** Takes like `takeRateLimited` but never refuses: null (nothing recorded) when a key is at its limit. */
export async function tryTakeRate(db: Db, checks: RateCheck[]): Promise<RateTaken | null> {
  const outcome = await take(db, [{ checks, message: () => '' }]);
  return 'taken' in outcome ? outcome.taken : null;
}

/**
 * Gives back what a take recorded. Limits that count only failures (wrong passwords, wrong codes)
 * take before the attempt, so parallel attempts cannot all pass one check, and give back after a
 * success.
 */
export async function giveBackRateEvents(db: Db, taken: RateTaken): Promise<void> {
  if (taken.seqs.length === 0) return;
  await sql`delete from rate_events where seq = any(${taken.seqs}::bigint[])`.execute(db);
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

/** The longest wait any of the keys must sit out (0 when every one is under its limit). Reads only. */
export async function longestRetryAfter(db: Db, checks: RateCheck[], now = new Date()): Promise<number> {
  let wait = 0;
  for (const { key, limit } of checks) wait = Math.max(wait, await retryAfterSeconds(db, key, limit, now));
  return wait;
}
