import type { Kysely } from 'kysely';

/**
 * Organizations as provisioning needs them, kept from identity's events: who belongs to which
 * organization with which role, and whether it is Active. A member who left stays as a row with
 * `is_member` false, so an older event arriving late cannot bring them back. Devices remember why
 * they were suspended: those an organization's suspension switched off come back with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('org_id', 'uuid', (c) => c.primaryKey())
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('plan', 'text')
    .addColumn('last_event_id', 'uuid', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('org_members')
    .addColumn('org_id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('is_member', 'boolean', (c) => c.notNull())
    .addColumn('last_event_id', 'uuid', (c) => c.notNull())
    .addPrimaryKeyConstraint('org_members_pk', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('org_members_user').on('org_members').column('user_id').execute();

  await db.schema.alterTable('devices').addColumn('suspended_reason', 'text').execute();
  await db.schema.createIndex('entitlements_org').on('entitlements').column('org_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entitlements_org').execute();
  await db.schema.alterTable('devices').dropColumn('suspended_reason').execute();
  await db.schema.dropTable('org_members').execute();
  await db.schema.dropTable('organizations').execute();
}
