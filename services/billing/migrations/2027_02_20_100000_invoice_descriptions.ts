import type { Kysely } from 'kysely';

/**
 * Receipts say what each charge is (issue #26): why the invoice was made (the first payment, a
 * renewal, a plan change) and, for a plan change, the plan it moved from. Invoices recorded
 * before this carry neither and read as their plan alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('reason', 'text').addColumn('from_plan_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['from_plan_code', 'reason'])
    await db.schema.alterTable('invoices').dropColumn(column).execute();
}
