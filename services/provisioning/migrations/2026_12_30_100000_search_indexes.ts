import { sql, type Kysely } from 'kysely';

/**
 * The operator console searches devices by any part of their name (`ilike '%…%'`): a trigram
 * index answers that without reading every device. pg_trgm lives in the shared `extensions`
 * schema (see provisionSchema).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index devices_name_trgm on devices using gin (name extensions.gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('devices_name_trgm').execute();
}
