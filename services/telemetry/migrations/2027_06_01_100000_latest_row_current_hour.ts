import type { Kysely } from 'kysely';

/**
 * A device's bytes in the hour under way are kept in its latest row (`hour`, `hour_rx_bytes`,
 * `hour_tx_bytes`), which each sample rewrites anyway; the hour moves to `device_traffic_hours`
 * when the device's first sample of a later hour comes. A sample then writes one row instead of
 * two (issue #24's ingest). Readers add the row's hour to the finished ones. Rows written before
 * this migration start an hour of their own at their next sample: the finished hours add up
 * (`on conflict … rx_bytes + excluded.rx_bytes`), so an hour split across the change is still whole.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('device_latest_telemetry')
    .addColumn('hour', 'timestamptz')
    .addColumn('hour_rx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('hour_tx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('device_latest_telemetry')
    .dropColumn('hour')
    .dropColumn('hour_rx_bytes')
    .dropColumn('hour_tx_bytes')
    .execute();
}
