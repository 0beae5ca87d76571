import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Which device a public key belongs to, from provisioning's events.
  await db.schema
    .createTable('device_keys')
    .addColumn('public_key', 'text', (c) => c.primaryKey())
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('org_id', 'uuid')
    .execute();
  await db.schema.createIndex('device_keys_device').on('device_keys').column('device_id').execute();

  // The latest sample per device, overwritten each time: there is no per-device history.
  await db.schema
    .createTable('device_latest_telemetry')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey())
    .addColumn('node_id', 'uuid', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('rx_packets', 'bigint')
    .addColumn('tx_packets', 'bigint')
    .addColumn('rx_bytes', 'bigint', (c) => c.notNull())
    .addColumn('tx_bytes', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms', 'real')
    .addColumn('latest_handshake', 'timestamptz')
    .addColumn('endpoint', 'text')
    .execute();

  // Traffic per hour for the whole service, with no device column (no-logs).
  await db.schema
    .createTable('telemetry')
    .addColumn('ts', 'timestamptz', (c) => c.primaryKey())
    .addColumn('rx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('tx_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('vps_metrics')
    .addColumn('host_id', 'uuid', (c) => c.notNull())
    .addColumn('ts', 'timestamptz', (c) => c.notNull())
    .addColumn('cpu', 'real', (c) => c.notNull())
    .addColumn('mem_used', 'bigint', (c) => c.notNull())
    .addColumn('mem_total', 'bigint', (c) => c.notNull())
    .addColumn('disk_used', 'bigint', (c) => c.notNull())
    .addColumn('disk_total', 'bigint', (c) => c.notNull())
    .addColumn('load1', 'real', (c) => c.notNull())
    .addColumn('load5', 'real', (c) => c.notNull())
    .addColumn('load15', 'real', (c) => c.notNull())
    .addPrimaryKeyConstraint('vps_metrics_pk', ['host_id', 'ts'])
    .execute();
  await sql`select 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['vps_metrics', 'telemetry', 'device_latest_telemetry', 'device_keys'])
    await db.schema.dropTable(table).execute();
}
