import { sql, type Kysely } from 'kysely';

/**
 * Refunds are recorded as an intent (pending) before the provider is called, outside any
 * transaction, and marked issued after; the owner and the paid e-mail make "once per customer"
 * answerable. A checkout whose delayed payment failed is `failed`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('refunds')
    .addColumn('subscription_id', 'uuid', (c) => c.references('subscriptions.id'))
    .addColumn('user_id', 'uuid')
    .addColumn('email', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('issued').check(sql`status in ('pending', 'issued')`))
    .addColumn('cancel_at_provider', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('issued_at', 'timestamptz')
    .execute();
  await sql`update refunds set subscription_id = invoices.subscription_id, user_id = invoices.user_id,
    issued_at = refunds.created_at from invoices where invoices.id = refunds.invoice_id`.execute(db);
  await db.schema
    .alterTable('refunds')
    .alterColumn('status', (c) => c.setDefault('pending'))
    .execute();
  await db.schema.createIndex('refunds_user').on('refunds').column('user_id').execute();
  await db.schema.createIndex('refunds_email').on('refunds').column('email').execute();
  await db.schema
    .createIndex('refunds_pending')
    .on('refunds')
    .column('created_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await sql`alter table checkout_sessions drop constraint checkout_sessions_status_check`.execute(db);
  await sql`alter table checkout_sessions add constraint checkout_sessions_status_check
    check (status in ('open', 'paid', 'claimed', 'expired', 'failed'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table checkout_sessions drop constraint checkout_sessions_status_check`.execute(db);
  await sql`alter table checkout_sessions add constraint checkout_sessions_status_check
    check (status in ('open', 'paid', 'claimed', 'expired'))`.execute(db);
  await db.schema.dropIndex('refunds_pending').execute();
  await db.schema.dropIndex('refunds_email').execute();
  await db.schema.dropIndex('refunds_user').execute();
  for (const column of ['issued_at', 'attempts', 'cancel_at_provider', 'status', 'email', 'user_id', 'subscription_id'])
    await db.schema.alterTable('refunds').dropColumn(column).execute();
}
