import { sql, type Kysely } from 'kysely';

/**
 * Every device's latest row is rewritten at each sample (100,000 rows every 10 s at 100 nodes of
 * 1,000 peers). An index on a column that changes at every sample (the time, the counters, the
 * latency) takes a new entry at each rewrite and stops Postgres from updating the row in place
 * (a heap-only update, which touches no index): the console's sort orders by time, bytes and
 * latency are read by sorting the page's rows instead (a top-N sort; the page counts every row of
 * its summaries anyway). What is left is indexed on columns that rarely change (the primary key,
 * the node, the handshake, renewed every two minutes), and pages are half filled so the new
 * version of a row fits beside the old one. Device hours are added to ~360 times an hour each:
 * room on their pages too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const index of ['latest_ts', 'latest_rx', 'latest_tx', 'latest_latency_asc', 'latest_latency_desc'])
    await db.schema.dropIndex(index).ifExists().execute();
  await sql`alter table device_latest_telemetry set (fillfactor = 50)`.execute(db);
  await sql`alter table device_traffic_hours set (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table device_traffic_hours reset (fillfactor)`.execute(db);
  await sql`alter table device_latest_telemetry reset (fillfactor)`.execute(db);
  await db.schema.createIndex('latest_ts').on('device_latest_telemetry').columns(['ts', 'device_id']).execute();
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
