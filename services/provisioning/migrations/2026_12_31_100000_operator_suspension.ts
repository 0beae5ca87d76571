import type { Kysely } from 'kysely';

/**
 * Whether an operator holds the organization suspended (identity's `suspendedByOperator`), so its
 * members' refusals name the service operator instead of asking them to renew a plan.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('suspended_by_operator', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('suspended_by_operator').execute();
}
