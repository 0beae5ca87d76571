import { refundIssued } from '@qw/contracts';
import { consumer } from '@qw/platform';
import { sql, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { IdentityDatabase } from '../database.ts';

type Db = Kysely<IdentityDatabase>;

/** Who an audit line names when the account is gone by the time the event is handled. */
const gone = '(deleted account)';

/**
 * Issue #26: the operators' audit line of a refund an operator asked for (`user.refunded`), written
 * from billing's `billing.refund.issued` event, which names the operator (`refundedBy`, recorded
 * by billing in the refund's own transaction). A durable consumer: identity being down when the
 * refund is made only delays the line. Once per refund: the inbox skips a redelivered event, and
 * the unique `admin_audit_refund_once` index skips the same refund published again. The line is
 * dated when billing issued the refund; the operator's address is the one they have now (the
 * gateway's call used to take it at the same moment).
 */
export const refundAuditConsumer = consumer('identity.audit-refund-issued', refundIssued, async (tx: Db, event) => {
  const { data } = event;
  if (!data.refundedBy || !data.userId) return;
  const ids = [data.refundedBy, data.userId];
  const people = await tx.selectFrom('users').select(['id', 'email']).where('id', 'in', ids).execute();
  const emailOf = new Map(people.map((person) => [person.id, person.email]));
  const details = {
    user_id: data.userId,
    refund_id: data.refundId,
    amount_cents: data.amountCents,
    ...(data.currency ? { currency: data.currency } : {}),
    ...(data.planCode ? { plan: data.planCode } : {}),
  };
  await sql`
    insert into admin_audit (id, at, kind, actor_id, actor_email, target, details)
    values (${uuidv7()}, ${event.occurredAt}, 'user.refunded', ${data.refundedBy},
            ${emailOf.get(data.refundedBy) ?? gone}, ${emailOf.get(data.userId) ?? gone}, ${JSON.stringify(details)}::jsonb)
    on conflict ((details->>'refund_id')) where kind = 'user.refunded' and details ? 'refund_id' do nothing`.execute(
    tx,
  );
});
