import { type Kysely, sql } from 'kysely';

/**
 * A Stripe event is stored when it arrives and applied afterwards by billing's webhook worker: the
 * row keeps the verified event until it is applied (`handled_at`), and the attempts and the time of
 * the next one when applying it failed. Events recorded before this were applied on arrival.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_events')
    .addColumn('payload', 'jsonb')
    .addColumn('handled_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_error', 'text')
    .execute();
  await sql`update webhook_events set handled_at = received_at`.execute(db);
  await sql`create index webhook_events_due on webhook_events (next_attempt_at) where handled_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_events_due`.execute(db);
  for (const column of ['last_error', 'next_attempt_at', 'attempts', 'handled_at', 'payload'])
    await db.schema.alterTable('webhook_events').dropColumn(column).execute();
}
