import { sql, type Kysely } from 'kysely';

/**
 * Config links: a device's config opened in a new tab carries no access token, so the page asks
 * for a link first. The link's token is random (only its hash is kept), good for one format,
 * once, for a minute.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('config_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('device_id', 'uuid', (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('config_links_expires').on('config_links').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('config_links').execute();
}
