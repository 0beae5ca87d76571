import { type Kysely, sql } from 'kysely';
import type { BillingDatabase } from '../database.ts';

type Db = Kysely<BillingDatabase>;

/** Stores a verified event once per Stripe event id; answers false when it was stored before. */
export async function recordEvent(db: Db, event: { id: string; type: string; payload: string }): Promise<boolean> {
  const fresh = await db
    .insertInto('webhook_events')
    .values({ id: event.id, type: event.type, payload: event.payload })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return Boolean(fresh);
}

/** Events waiting to be applied whose time has come, oldest first. */
export async function dueEventIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_events')
    .select('id')
    .where('handled_at', 'is', null)
    .where('next_attempt_at', '<=', sql<Date>`now()`)
    .orderBy('received_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Locks one event still waiting to be applied, for the transaction that applies it; undefined when
 * it was applied already or another worker (a replica) holds it.
 */
export async function claimEvent(tx: Db, id: string) {
  return tx
    .selectFrom('webhook_events')
    .select(['id', 'type', 'payload', 'attempts'])
    .where('id', '=', id)
    .where('handled_at', 'is', null)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** Applied, in the transaction that applied it; the body goes (it names the buyer), the id stays. */
export async function markHandled(tx: Db, id: string): Promise<void> {
  await tx
    .updateTable('webhook_events')
    .set({ handled_at: sql<Date>`now()`, payload: null, last_error: null })
    .where('id', '=', id)
    .execute();
}

export async function markFailed(
  db: Db,
  id: string,
  failure: { attempts: number; retryInSeconds: number; reason: string },
): Promise<void> {
  await db
    .updateTable('webhook_events')
    .set({
      attempts: failure.attempts,
      last_error: failure.reason,
      next_attempt_at: sql<Date>`now() + make_interval(secs => ${failure.retryInSeconds})`,
    })
    .where('id', '=', id)
    .where('handled_at', 'is', null)
    .execute();
}
