import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // The spec's vps_hosts, plus what a WireGuard server needs.
  await db.schema
    .createTable('nodes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('ssh_user', 'text')
    .addColumn('ssh_port', 'integer')
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('node_index', 'integer', (c) => c.notNull().unique())
    .addColumn('ipv4_cidr', 'text', (c) => c.notNull())
    .addColumn('ipv6_cidr', 'text', (c) => c.notNull())
    .addColumn('tags', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('public_key', 'text', (c) => c.unique())
    .addColumn('private_key_sealed', 'text')
    .addColumn('client_keys', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('node_id', 'uuid', (c) => c.references('nodes.id'))
    .addColumn('ipv4', 'text')
    .addColumn('ipv6', 'text')
    .addColumn('key_created_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  // An address is leased to one device per node; removing the device releases it.
  await db.schema.createIndex('devices_node_ipv4').on('devices').columns(['node_id', 'ipv4']).unique().execute();
  await db.schema.createIndex('devices_user').on('devices').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('devices_org').on('devices').column('org_id').execute();

  // What billing said about each subscription, kept here so adding a device needs no call.
  await db.schema
    .createTable('entitlements')
    .addColumn('subscription_id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid')
    .addColumn('org_id', 'uuid')
    .addColumn('plan_code', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('entitlements_user').on('entitlements').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['entitlements', 'devices', 'nodes']) await db.schema.dropTable(table).execute();
}
