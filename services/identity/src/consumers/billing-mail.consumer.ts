import type { Kysely } from 'kysely';
import {
  invoicePaid,
  invoicePaymentFailed,
  purchaseClaimed,
  refundIssued,
  subscriptionCanceled,
  subscriptionUpdated,
} from '@qw/contracts';
import { consumer, type ConsumerSpec } from '@qw/platform';
import { queueMail } from '@qw/platform/mailer';
import type { IdentityDatabase } from '../database.ts';
import {
  billingMailKinds,
  type PaymentFailedFacts,
  type PlanNoticeFacts,
  type ReceiptFacts,
  type RefundFacts,
} from '../mail/billing-mail.ts';

type Db = Kysely<IdentityDatabase>;

/** Records a notice once per subscription, kind and key; answers whether it is new. */
async function firstNotice(tx: Db, subscriptionId: string, kind: string, key: string): Promise<boolean> {
  const inserted = await tx
    .insertInto('billing_notices')
    .values({ subscription_id: subscriptionId, kind, key })
    .onConflict((oc) => oc.doNothing())
    .returning('subscription_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Billing's mails: one durable consumer per subject, each queueing its mail in the transaction
 * that records the event in the inbox (so a redelivered event mails nothing twice). The queue
 * sends after the commit (`afterCommit`, given by the service). An event that names nobody (a
 * checkout paid before its buyer had an account) mails nothing: its receipt goes with the claim.
 */
export const billingMailConsumers: ConsumerSpec<IdentityDatabase>[] = [
  consumer('identity.mail-invoice-paid', invoicePaid, async (tx: Db, { data }) => {
    if (!data.userId) return;
    const facts: ReceiptFacts = { ...data, userId: data.userId };
    await queueMail(tx, billingMailKinds.receipt, facts);
  }),
  consumer('identity.mail-purchase-claimed', purchaseClaimed, async (tx: Db, { data }) => {
    if (!data.invoice) return;
    const facts: ReceiptFacts = { ...data.invoice, userId: data.userId, orgId: data.orgId, reason: 'checkout' };
    await queueMail(tx, billingMailKinds.receipt, facts);
  }),
  consumer('identity.mail-payment-failed', invoicePaymentFailed, async (tx: Db, { data }) => {
    if (!data.userId) return;
    const facts: PaymentFailedFacts = { ...data, userId: data.userId };
    await queueMail(tx, billingMailKinds.paymentFailed, facts);
  }),
  consumer('identity.mail-subscription-updated', subscriptionUpdated, async (tx: Db, { data }) => {
    if (!data.userId || !data.cancelAtPeriodEnd || !data.currentPeriodEnd) return;
    if (!(await firstNotice(tx, data.subscriptionId, 'cancel_scheduled', data.currentPeriodEnd))) return;
    const facts: PlanNoticeFacts = {
      subscriptionId: data.subscriptionId,
      userId: data.userId,
      orgId: data.orgId,
      planCode: data.planCode,
      at: data.currentPeriodEnd,
    };
    await queueMail(tx, billingMailKinds.cancelScheduled, facts);
  }),
  consumer('identity.mail-subscription-canceled', subscriptionCanceled, async (tx: Db, { data }) => {
    if (!data.userId) return;
    const facts: PlanNoticeFacts = {
      subscriptionId: data.subscriptionId,
      userId: data.userId,
      orgId: data.orgId,
      planCode: data.planCode,
      at: data.canceledAt,
    };
    await queueMail(tx, billingMailKinds.planEnded, facts);
  }),
  consumer('identity.mail-refund-issued', refundIssued, async (tx: Db, { data }) => {
    if (!data.userId) return;
    const facts: RefundFacts = { ...data, userId: data.userId };
    await queueMail(tx, billingMailKinds.refund, facts);
  }),
];
