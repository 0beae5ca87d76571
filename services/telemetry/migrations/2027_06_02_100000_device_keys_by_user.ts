import type { Kysely } from 'kysely';

/**
 * Issue #26, "Hide test accounts": the console's Telemetry page, traffic chart and server cards
 * leave out the devices of the people identity names as test accounts (at most 1,000), found
 * through their keys by person. Keys change rarely (a device added, a rotation), so the index
 * costs the samples nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('device_keys_user').on('device_keys').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('device_keys_user').execute();
}
