import { sql, type Kysely } from 'kysely';

/**
 * Billing details for invoices (issue #26): the company name, address and VAT ID a person (for
 * their own plan) or an organization's owners set, shown on every receipt. One row per person or
 * organization; a deleted person's row goes with their other personal data.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('billing_details')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.unique())
    .addColumn('org_id', 'uuid', (c) => c.unique())
    .addColumn('company_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('address', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('vat_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('billing_details_one_owner', sql`(user_id is null) <> (org_id is null)`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_details').execute();
}
