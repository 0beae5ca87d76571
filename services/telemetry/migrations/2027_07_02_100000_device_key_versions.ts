import { sql, type Kysely } from 'kysely';

/**
 * The newest device event telemetry applied to each device's key, by its outbox row number: the
 * device events come through separate consumers, and one whose publish failed is sent after later
 * ones, so an older move or key could otherwise overwrite a newer one. Kept a day after the device
 * is forgotten, so a late event does not bring its key back.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_key_versions')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey())
    .addColumn('outbox_sequence', 'bigint', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_key_versions').execute();
}
