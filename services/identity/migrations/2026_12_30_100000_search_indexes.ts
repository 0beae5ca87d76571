import { sql, type Kysely } from 'kysely';

/**
 * The operator console searches people by any part of their e-mail or name and organizations by
 * any part of their name (`ilike '%…%'`): trigram indexes answer that without reading every row.
 * pg_trgm lives in the shared `extensions` schema (see provisionSchema).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index users_email_trgm on users using gin (email extensions.gin_trgm_ops)`.execute(db);
  await sql`create index profiles_full_name_trgm on profiles using gin (full_name extensions.gin_trgm_ops)`.execute(db);
  await sql`create index organizations_name_trgm on organizations using gin (name extensions.gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['organizations_name_trgm', 'profiles_full_name_trgm', 'users_email_trgm'])
    await db.schema.dropIndex(index).execute();
}
