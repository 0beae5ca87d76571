import type { Kysely } from 'kysely';

/**
 * Issue #26: accounts the Quietwire operator has suspended, as identity's events said (the reason
 * stays with identity). While a row says suspended, the person's devices are held off and none
 * can be added or switched on. `last_event_id` orders identity's events (UUID v7).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_suspensions')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey())
    .addColumn('suspended', 'boolean', (c) => c.notNull())
    .addColumn('last_event_id', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('account_suspensions').execute();
}
