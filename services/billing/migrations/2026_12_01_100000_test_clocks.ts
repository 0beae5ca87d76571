import { sql, type Kysely } from 'kysely';

/**
 * One test clock per checkout instead of one global offset, the way Stripe's test clocks work:
 * a test advances its own clock by id, and nothing else moves with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('test_clocks')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('offset_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .alterTable('checkout_sessions')
    .addColumn('test_clock_id', 'uuid', (c) => c.references('test_clocks.id'))
    .execute();
  await db.schema
    .alterTable('subscriptions')
    .addColumn('test_clock_id', 'uuid', (c) => c.references('test_clocks.id'))
    .execute();
  await db.schema.createIndex('subscriptions_test_clock').on('subscriptions').column('test_clock_id').execute();
  await db.schema.dropTable('test_clock').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('test_clock')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('offset_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.insertInto('test_clock').values({ id: 1, offset_seconds: 0 }).execute();
  await db.schema.alterTable('subscriptions').dropColumn('test_clock_id').execute();
  await db.schema.alterTable('checkout_sessions').dropColumn('test_clock_id').execute();
  await db.schema.dropTable('test_clocks').execute();
}
