import { sql, type Kysely } from 'kysely';

/**
 * A node can see a device's first handshake before telemetry has read the event that put the
 * device's key on that node (the device events and the handshake changes are separate consumers):
 * such a handshake waits here, a few minutes at most, for its key. Keys and times only, no address.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('early_handshakes')
    .addColumn('node_id', 'uuid', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('latest_handshake', 'timestamptz', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('early_handshakes_pkey', ['node_id', 'public_key'])
    .execute();
  await db.schema.createIndex('early_handshakes_received').on('early_handshakes').column('received_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('early_handshakes').execute();
}
