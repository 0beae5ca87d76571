import type { Kysely } from 'kysely';

/**
 * Issue #26: the Quietwire operator may suspend a person's account, saying why; the person reads
 * the reason on their dashboard. Both are kept while the suspension lasts and cleared when it is
 * lifted (the operators' audit keeps who did it and the reason).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('suspended_at', 'timestamptz')
    .addColumn('suspension_reason', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('suspended_at').dropColumn('suspension_reason').execute();
}
