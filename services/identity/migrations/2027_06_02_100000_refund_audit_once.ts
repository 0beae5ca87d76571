import { sql, type Kysely } from 'kysely';

/**
 * Issue #26: the operators' audit line of a refund an operator asked for is written from billing's
 * `billing.refund.issued` event (not by the gateway after billing answered), once per refund
 * whatever is redelivered or published again: one `user.refunded` line per `details.refund_id`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index admin_audit_refund_once on admin_audit ((details->>'refund_id'))
            where kind = 'user.refunded' and details ? 'refund_id'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index admin_audit_refund_once`.execute(db);
}
