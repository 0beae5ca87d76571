import { sql, type Kysely } from 'kysely';

/**
 * Scheduled key rotation (issue #15): a device may ask for a new key every 30 or 90 days. The key
 * a rotation replaced keeps working on its node for a grace period, with the address it had:
 * WireGuard routes an address to one peer only, so the new key gets an address of its own and
 * the old one stays leased until the grace period ends. The test clock lets tests move
 * provisioning's time (only with PROVISIONING_TEST_CLOCK, never in production).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('key_rotation_days', 'integer', (c) => c.check(sql`key_rotation_days in (30, 90)`))
    .addColumn('next_key_rotation_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('devices_next_key_rotation')
    .on('devices')
    .column('next_key_rotation_at')
    .where(sql.ref('next_key_rotation_at'), 'is not', null)
    .execute();
  await db.schema
    .createTable('retiring_keys')
    .addColumn('public_key', 'text', (c) => c.primaryKey())
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('node_id', 'uuid', (c) => c.notNull().references('nodes.id'))
    .addColumn('ipv4', 'text', (c) => c.notNull())
    .addColumn('ipv6', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('retiring_keys_device').on('retiring_keys').column('device_id').execute();
  await db.schema.createIndex('retiring_keys_expires').on('retiring_keys').column('expires_at').execute();
  await db.schema
    .createIndex('retiring_keys_node_ipv4')
    .on('retiring_keys')
    .columns(['node_id', 'ipv4'])
    .unique()
    .execute();
  await db.schema
    .createTable('test_clock')
    .addColumn('id', 'boolean', (c) => c.primaryKey().defaultTo(true).check(sql`id`))
    .addColumn('offset_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('test_clock').execute();
  await db.schema.dropTable('retiring_keys').execute();
  await db.schema.dropIndex('devices_next_key_rotation').execute();
  await db.schema.alterTable('devices').dropColumn('next_key_rotation_at').dropColumn('key_rotation_days').execute();
}
