import { sql, type Kysely } from 'kysely';

/**
 * The operator console (issue #13): an organization an operator suspended stays Suspended whatever
 * its plan until an operator lifts it; the admin list remembers when and by whom an address was
 * added; the operators' own audit; and the indexes the console's pages need at 20,000 people.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('suspended_by_operator', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema
    .alterTable('admin_emails')
    .addColumn('added_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('added_by', 'uuid')
    .execute();

  await db.schema
    .createTable('admin_audit')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'uuid', (c) => c.notNull())
    // A snapshot: the address the admin had when acting.
    .addColumn('actor_email', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await sql`create index admin_audit_page on admin_audit (at desc, id desc)`.execute(db);

  // The users page sorts by created_at, e-mail (users_email_key) or name, ties broken by id.
  await sql`create index users_created_page on users (created_at, id)`.execute(db);
  await sql`create index profiles_name_page on profiles (full_name, id)`.execute(db);
  // The organizations page: by created_at or name; members counted through org_members' key.
  await sql`create index organizations_created_page on organizations (created_at, id)`.execute(db);
  await sql`create index organizations_name_page on organizations (name, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'organizations_name_page',
    'organizations_created_page',
    'profiles_name_page',
    'users_created_page',
  ])
    await sql`drop index if exists ${sql.ref(index)}`.execute(db);
  await db.schema.dropTable('admin_audit').execute();
  await db.schema.alterTable('admin_emails').dropColumn('added_by').dropColumn('added_at').execute();
  await db.schema.alterTable('organizations').dropColumn('suspended_by_operator').execute();
}
