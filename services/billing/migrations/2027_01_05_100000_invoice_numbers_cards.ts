import { sql, type Kysely } from 'kysely';

/**
 * Receipts (issue #15): every invoice gets a number from one sequence (shown as QW-000123), and the
 * card that paid it (brand and last four digits, as the provider reports them; never more). The
 * subscription keeps the card it renews with, so a renewal's invoice names it too.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence invoice_numbers`.execute(db);
  await db.schema
    .alterTable('invoices')
    .addColumn('number', 'bigint', (c) => c.notNull().defaultTo(sql`nextval('invoice_numbers')`))
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text', (c) => c.check(sql`card_last4 ~ '^[0-9]{4}$'`))
    .execute();
  await sql`alter sequence invoice_numbers owned by invoices.number`.execute(db);
  await sql`create unique index invoices_number on invoices (number)`.execute(db);
  await db.schema
    .alterTable('subscriptions')
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text', (c) => c.check(sql`card_last4 ~ '^[0-9]{4}$'`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['card_last4', 'card_brand'])
    await db.schema.alterTable('subscriptions').dropColumn(column).execute();
  await sql`drop index invoices_number`.execute(db);
  for (const column of ['card_last4', 'card_brand', 'number'])
    await db.schema.alterTable('invoices').dropColumn(column).execute();
}
