import type { Kysely } from 'kysely';

/**
 * Samples now arrive on subjects that carry the reporting node's name (its NATS credentials
 * allow no other), and a sample counts only for peers placed on that node: telemetry keeps the
 * nodes' names (from provisioning's registrations) and the node of every key.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('nodes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .execute();
  await db.schema.alterTable('device_keys').addColumn('node_id', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('device_keys').dropColumn('node_id').execute();
  await db.schema.dropTable('nodes').execute();
}
