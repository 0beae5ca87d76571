import { sql, type Kysely } from 'kysely';

/**
 * Issue #26: an operator marks accounts as test accounts (in development, addresses at reserved
 * test domains are marked when made), and the console's figures and lists can leave them out. The
 * partial index keeps "who is a test account" one short index read however many people there are.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('is_test', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
  await db.schema
    .createIndex('users_test_accounts')
    .on('users')
    .column('id')
    .where(sql.ref('is_test'), '=', true)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_test_accounts').execute();
  await db.schema.alterTable('users').dropColumn('is_test').execute();
}
