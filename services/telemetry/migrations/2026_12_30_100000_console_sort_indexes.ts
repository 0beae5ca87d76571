import { sql, type Kysely } from 'kysely';

/**
 * The console's Telemetry page sorts the latest rows by traffic or latency and shows the first
 * page: indexes in each order (latency both ways, since missing latencies go last either way), so
 * a page is read from the index instead of sorting every device's row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('latest_rx').on('device_latest_telemetry').columns(['rx_bytes', 'device_id']).execute();
  await db.schema.createIndex('latest_tx').on('device_latest_telemetry').columns(['tx_bytes', 'device_id']).execute();
  await db.schema
    .createIndex('latest_latency_asc')
    .on('device_latest_telemetry')
    .columns(['latency_ms', 'device_id'])
    .execute();
  await sql`create index latest_latency_desc on device_latest_telemetry (latency_ms desc nulls last, device_id desc)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['latest_latency_desc', 'latest_latency_asc', 'latest_tx', 'latest_rx'])
    await db.schema.dropIndex(index).execute();
}
