import type { Kysely } from 'kysely';

/**
 * Each device's newest handshake, from telemetry's events: the console filters and counts
 * "connected now" (a handshake within the connected window) with this index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').addColumn('latest_handshake', 'timestamptz').execute();
  await db.schema.createIndex('devices_latest_handshake').on('devices').column('latest_handshake').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('devices_latest_handshake').execute();
  await db.schema.alterTable('devices').dropColumn('latest_handshake').execute();
}
