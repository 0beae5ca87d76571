import type { Kysely } from 'kysely';

/**
 * Issue #26: an operator who suspends an organization says why, and its members read it. The
 * reason is kept while the operator's suspension lasts and cleared when it is lifted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('suspension_reason', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('suspension_reason').execute();
}
