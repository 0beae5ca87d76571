import { sql, type Kysely } from 'kysely';

/**
 * The generations of the analytics projection. Each has its own schema of tables
 * (`analytics_g<generation>`, made by the service from its definition) and its own durable
 * consumers; the figures are read from the one that is live.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('generations')
    .addColumn('generation', 'serial', (c) => c.primaryKey())
    .addColumn('definition', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('building', 'live', 'retired')`))
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('live_since', 'timestamptz')
    .addColumn('retired_at', 'timestamptz')
    .addColumn('dropped_at', 'timestamptz')
    .execute();
  // At most one live and one building generation at a time.
  await db.schema
    .createIndex('generations_one_per_status')
    .on('generations')
    .column('status')
    .unique()
    .where(sql.ref('status'), 'in', ['live', 'building'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('generations').execute();
}
