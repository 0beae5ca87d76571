import { sql, type Kysely } from 'kysely';

/**
 * Admin rights follow the environment's list (`source` tells its rows from the ones operators add,
 * which the start-up sync leaves alone), and a session remembers whether it passed the second
 * factor, which admin rights require once two-factor sign-in is on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('admin_emails')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('operator'))
    .execute();
  // Until now only ADMIN_EMAILS wrote this table: its rows follow the list from the next start.
  await sql`update admin_emails set source = 'environment'`.execute(db);
  await sql`alter table admin_emails add constraint admin_emails_source
            check (source in ('environment', 'operator'))`.execute(db);
  await db.schema
    .alterTable('refresh_tokens')
    .addColumn('two_factor', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('refresh_tokens').dropColumn('two_factor').execute();
  await db.schema.alterTable('admin_emails').dropColumn('source').execute();
}
