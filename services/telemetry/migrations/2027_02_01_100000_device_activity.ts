import type { Kysely } from 'kysely';

/**
 * Whether each device is on, from provisioning's events (created, suspended, activated), so the
 * Telemetry page counts a suspended device as not connected, as every other page does. The event
 * time orders them: suspended and activated come through separate consumers, in any order. The
 * page's predicate looks a device up by its primary key, so no other index is needed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_activity')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_activity').execute();
}
