import type { Kysely } from 'kysely';

/**
 * Issue #24: an organization's device list comes in pages, newest first. `(org_id, created_at, id)`
 * gives each page from the index (walked backwards) and replaces `devices_org (org_id)`, whose
 * lookups it serves as well.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('devices_org_created').on('devices').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('devices_org').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('devices_org').on('devices').column('org_id').execute();
  await db.schema.dropIndex('devices_org_created').execute();
}
