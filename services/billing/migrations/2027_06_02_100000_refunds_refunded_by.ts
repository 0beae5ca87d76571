import type { Kysely } from 'kysely';

/**
 * Issue #26, the operator's refund made lossless: the operator who asked for a refund is recorded
 * with it, in the transaction that records the refund, and its `billing.refund.issued` event says
 * so; identity writes the operators' audit line from that event. Null: the customer's own refund
 * (a portal cancel within the money-back window).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('refunds').addColumn('refunded_by', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('refunds').dropColumn('refunded_by').execute();
}
