import { sql, type Kysely } from 'kysely';

/**
 * Each device's bytes per hour, for its Devices page's "last 24 h" only: rows older than a day
 * are deleted by a periodic task (and never read), so no longer history of a
 * device's traffic exists. The list of a person's devices sums them with one query by device id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_traffic_hours')
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('hour', 'timestamptz', (c) => c.notNull())
    .addColumn('rx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('tx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('device_traffic_hours_pkey', ['device_id', 'hour'])
    .execute();
  await sql`create index device_traffic_hours_hour on device_traffic_hours (hour)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('device_traffic_hours').execute();
}
