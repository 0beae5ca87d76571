import type { Kysely } from 'kysely';

/**
 * The operator console reads the latest rows by handshake (connected now), by node and in pages
 * sorted by time or traffic; and the newest host metrics per node.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('latest_handshake').on('device_latest_telemetry').column('latest_handshake').execute();
  await db.schema
    .createIndex('latest_node')
    .on('device_latest_telemetry')
    .columns(['node_id', 'latest_handshake'])
    .execute();
  await db.schema.createIndex('latest_ts').on('device_latest_telemetry').columns(['ts', 'device_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['latest_ts', 'latest_node', 'latest_handshake']) await db.schema.dropIndex(index).execute();
}
