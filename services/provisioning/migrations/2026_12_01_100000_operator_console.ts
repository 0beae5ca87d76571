import { sql, type Kysely } from 'kysely';

/**
 * The operator console: a node can be drained (no new placements, those placed stay), every
 * operator action is recorded (who, what, on what, when), and the device list is paged by
 * creation time or name and filtered by node.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('nodes')
    .addColumn('draining', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createTable('operator_actions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('actor_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'uuid', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema.createIndex('operator_actions_at').on('operator_actions').columns(['at', 'id']).execute();
  await db.schema.createIndex('devices_created').on('devices').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('devices_name').on('devices').columns(['name', 'id']).execute();
  await db.schema.createIndex('devices_node').on('devices').columns(['node_id', 'is_active']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['devices_node', 'devices_name', 'devices_created', 'operator_actions_at'])
    await db.schema.dropIndex(index).execute();
  await db.schema.dropTable('operator_actions').execute();
  await db.schema.alterTable('nodes').dropColumn('draining').execute();
}
