import type { Kysely } from 'kysely';

/**
 * Billing's mails (issue #15): receipts and notices are sent from the platform's mail queue
 * (`mail_jobs`, made by the platform's migrations). A notice that billing's events may announce
 * more than once (a plan set to end at its period's end is in every later update) is recorded
 * here once per subscription and moment, so it is mailed once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('billing_notices')
    .addColumn('subscription_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(db.fn('now')))
    .addPrimaryKeyConstraint('billing_notices_pk', ['subscription_id', 'kind', 'key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_notices').execute();
}
