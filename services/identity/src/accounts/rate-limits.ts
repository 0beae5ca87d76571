import { sql, type Kysely } from 'kysely';

export type RateLimit = { max: number; windowSeconds: number };

/** Failed sign-ins: per account and per (hashed) client address. */
export const signInLimits = {
  account: { max: 5, windowSeconds: 15 * 60 },
  address: { max: 20, windowSeconds: 15 * 60 },
} satisfies Record<string, RateLimit>;
export const contactLimit: RateLimit = { max: 5, windowSeconds: 60 * 60 };
export const resetLimit: RateLimit = { max: 5, windowSeconds: 60 * 60 };

/** Seconds until the key may act again, or 0 when it is under its limit. */
export async function retryAfterSeconds(db: Kysely<any>, key: string, limit: RateLimit): Promise<number> {
  const result = await sql<{ n: number; oldest: Date | null }>`
    select count(*)::int as n, min(at) as oldest from (
      select at from rate_events
      where key = ${key} and at > now() - make_interval(secs => ${limit.windowSeconds})
      order by at desc limit ${limit.max}
    ) recent`.execute(db);
  const row = result.rows[0];
  if (!row || row.n < limit.max || !row.oldest) return 0;
  const freeAt = new Date(row.oldest).getTime() + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((freeAt - Date.now()) / 1000));
}

export async function recordRateEvent(db: Kysely<any>, key: string): Promise<void> {
  await db.insertInto('rate_events').values({ key }).execute();
}

export async function clearRateEvents(db: Kysely<any>, key: string): Promise<void> {
  await db.deleteFrom('rate_events').where('key', '=', key).execute();
}

/** Rows older than the longest window tell nothing any more. */
export async function pruneRateEvents(db: Kysely<any>): Promise<void> {
  await sql`delete from rate_events where at < now() - interval '1 day'`.execute(db);
}

export function minutesText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? 'a minute' : `${minutes} minutes`;
}
