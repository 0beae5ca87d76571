import { type Kysely, sql } from 'kysely';

/**
 * Whether each device is on, from provisioning's events (created, suspended, activated), so the
 * Telemetry page counts a suspended device as not connected, as every other page does. The event
 * time orders them: suspended and activated come through separate consumers, in any order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_activity')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // The page's filter asks for the few devices that are off.
  await sql`create index device_activity_off on device_activity (device_id) where not is_active`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_activity').execute();
}
