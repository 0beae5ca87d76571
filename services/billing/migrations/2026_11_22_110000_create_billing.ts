import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_customer_id', 'text', (c) => c.unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_subscription_id', 'text', (c) => c.unique())
    .addColumn('customer_id', 'uuid', (c) => c.references('customers.id'))
    .addColumn('user_id', 'uuid')
    .addColumn('org_id', 'uuid')
    .addColumn('plan_code', 'text', (c) => c.notNull())
    .addColumn('seats', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_period_start', 'timestamptz')
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('canceled_at', 'timestamptz')
    .addColumn('provider_updated_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('subscriptions_user').on('subscriptions').column('user_id').execute();
  await db.schema.createIndex('subscriptions_org').on('subscriptions').column('org_id').execute();

  await db.schema
    .createTable('checkout_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('plan_code', 'text', (c) => c.notNull())
    .addColumn('account_type', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open', 'paid', 'claimed', 'expired')`))
    .addColumn('email', 'text')
    .addColumn('customer_id', 'uuid', (c) => c.references('customers.id'))
    .addColumn('subscription_id', 'uuid', (c) => c.references('subscriptions.id'))
    .addColumn('claimed_by', 'uuid')
    .addColumn('claimed_org_id', 'uuid')
    .addColumn('paid_at', 'timestamptz')
    .addColumn('claimed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider_invoice_id', 'text', (c) => c.unique())
    .addColumn('subscription_id', 'uuid', (c) => c.references('subscriptions.id'))
    .addColumn('user_id', 'uuid')
    .addColumn('org_id', 'uuid')
    .addColumn('plan_code', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('period_start', 'timestamptz', (c) => c.notNull())
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    .addColumn('paid_at', 'timestamptz')
    .addColumn('provider_payment_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('invoices_subscription').on('invoices').column('subscription_id').execute();

  await db.schema
    .createTable('refunds')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('invoice_id', 'uuid', (c) => c.notNull().unique().references('invoices.id'))
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The test provider's clock: real time plus an offset that tests (never production) advance.
  await db.schema
    .createTable('test_clock')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('offset_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.insertInto('test_clock').values({ id: 1, offset_seconds: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'test_clock',
    'webhook_events',
    'refunds',
    'invoices',
    'checkout_sessions',
    'subscriptions',
    'customers',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
