import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { checkoutCompleted, invoicePaid, invoicePaymentFailed, subscriptionActivated, subscriptionCanceled, subscriptionUpdated } from '@qw/contracts';
import { addToOutbox } from '@qw/platform/bus';
import type { BillingDatabase, CheckoutSession, Subscription } from '../database.ts';

/**
 * The normalized record of payments: both providers (Stripe webhooks, the test checkout) end
 * here, so the rows and events are the same whichever took the card.
 */
type Tx = Kysely<BillingDatabase>;

export function subscriptionState(sub: Subscription) {
  return {
    subscriptionId: sub.id,
    userId: sub.user_id,
    orgId: sub.org_id,
    planCode: sub.plan_code,
    status: sub.status,
    currentPeriodEnd: sub.current_period_end ? new Date(sub.current_period_end).toISOString() : null,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
  };
}

export async function upsertCustomer(tx: Tx, input: { provider: string; providerCustomerId: string | null; email: string }): Promise<string> {
  if (input.providerCustomerId) {
    const existing = await tx.selectFrom('customers').select('id').where('provider_customer_id', '=', input.providerCustomerId).executeTakeFirst();
    if (existing) return existing.id;
  }
  const id = randomUUID();
  await tx.insertInto('customers').values({ id, provider: input.provider, provider_customer_id: input.providerCustomerId, email: input.email, user_id: null }).execute();
  return id;
}

/** Finds the subscription by the provider's id, creating a placeholder when an event about it arrives first. */
export async function subscriptionForProviderId(tx: Tx, input: { provider: string; providerSubscriptionId: string; planCode: string; status?: string }): Promise<Subscription> {
  const existing = await tx.selectFrom('subscriptions').selectAll().where('provider_subscription_id', '=', input.providerSubscriptionId).forUpdate().executeTakeFirst();
  if (existing) return existing;
  await tx.insertInto('subscriptions').values({
    id: randomUUID(), provider: input.provider, provider_subscription_id: input.providerSubscriptionId, customer_id: null, user_id: null, org_id: null,
    plan_code: input.planCode, status: input.status ?? 'incomplete', current_period_start: null, current_period_end: null, canceled_at: null, provider_updated_at: null,
  }).onConflict((oc) => oc.column('provider_subscription_id').doNothing()).execute();
  return tx.selectFrom('subscriptions').selectAll().where('provider_subscription_id', '=', input.providerSubscriptionId).forUpdate().executeTakeFirstOrThrow();
}

/** A checkout was paid: the session records the buyer's email, customer and subscription. */
export async function markCheckoutPaid(tx: Tx, session: CheckoutSession, input: {
  email: string; customerId: string; subscriptionId: string; paidAt: Date;
}): Promise<void> {
  if (session.status !== 'open') return;
  await tx.updateTable('checkout_sessions').set({
    status: 'paid', email: input.email, customer_id: input.customerId, subscription_id: input.subscriptionId, paid_at: input.paidAt,
  }).where('id', '=', session.id).execute();
  await tx.updateTable('subscriptions').set({ customer_id: input.customerId, seats: session.quantity }).where('id', '=', input.subscriptionId).where('customer_id', 'is', null).execute();
  await addToOutbox(tx, checkoutCompleted, {
    sessionId: session.id, planCode: session.plan_code, accountType: session.account_type, seats: session.quantity,
    amountCents: session.amount_cents, currency: session.currency,
  });
}

export type InvoiceFacts = {
  providerInvoiceId: string | null;
  amountCents: number;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date;
  providerPaymentId: string | null;
};

/** Records a paid invoice once (by the provider's id) and moves the subscription's period forward. */
export async function recordInvoicePaid(tx: Tx, sub: Subscription, facts: InvoiceFacts): Promise<string | null> {
  if (facts.providerInvoiceId) {
    const known = await tx.selectFrom('invoices').select(['id', 'status']).where('provider_invoice_id', '=', facts.providerInvoiceId).executeTakeFirst();
    if (known?.status === 'paid' || known?.status === 'refunded') return null;
    if (known) await tx.deleteFrom('invoices').where('id', '=', known.id).execute();
  }
  const id = randomUUID();
  await tx.insertInto('invoices').values({
    id, provider_invoice_id: facts.providerInvoiceId, subscription_id: sub.id, user_id: sub.user_id, org_id: sub.org_id, plan_code: sub.plan_code,
    amount_cents: facts.amountCents, currency: facts.currency.toUpperCase(), status: 'paid', period_start: facts.periodStart, period_end: facts.periodEnd,
    paid_at: facts.paidAt, provider_payment_id: facts.providerPaymentId,
  }).execute();
  const periodEnd = sub.current_period_end ? new Date(sub.current_period_end) : null;
  if (!periodEnd || facts.periodEnd > periodEnd) {
    await tx.updateTable('subscriptions').set({ current_period_start: facts.periodStart, current_period_end: facts.periodEnd }).where('id', '=', sub.id).execute();
  }
  if (sub.status === 'past_due' || sub.status === 'incomplete') await setSubscriptionStatus(tx, sub.id, 'active');
  await addToOutbox(tx, invoicePaid, {
    invoiceId: id, subscriptionId: sub.id, userId: sub.user_id, orgId: sub.org_id, planCode: sub.plan_code, amountCents: facts.amountCents,
    currency: facts.currency.toUpperCase(), periodStart: facts.periodStart.toISOString(), periodEnd: facts.periodEnd.toISOString(), paidAt: facts.paidAt.toISOString(),
  });
  return id;
}

export async function recordInvoiceFailed(tx: Tx, sub: Subscription, facts: Omit<InvoiceFacts, 'paidAt' | 'providerPaymentId'> & { attemptedAt: Date }): Promise<void> {
  const known = facts.providerInvoiceId
    ? await tx.selectFrom('invoices').select(['id', 'status']).where('provider_invoice_id', '=', facts.providerInvoiceId).executeTakeFirst()
    : undefined;
  if (known && known.status !== 'open') return;
  const id = known?.id ?? randomUUID();
  if (!known) {
    await tx.insertInto('invoices').values({
      id, provider_invoice_id: facts.providerInvoiceId, subscription_id: sub.id, user_id: sub.user_id, org_id: sub.org_id, plan_code: sub.plan_code,
      amount_cents: facts.amountCents, currency: facts.currency.toUpperCase(), status: 'failed', period_start: facts.periodStart, period_end: facts.periodEnd,
      paid_at: null, provider_payment_id: null,
    }).execute();
  } else {
    await tx.updateTable('invoices').set({ status: 'failed' }).where('id', '=', id).execute();
  }
  if (sub.status === 'active') await setSubscriptionStatus(tx, sub.id, 'past_due');
  await addToOutbox(tx, invoicePaymentFailed, {
    invoiceId: id, subscriptionId: sub.id, userId: sub.user_id, orgId: sub.org_id, planCode: sub.plan_code, amountCents: facts.amountCents, attemptedAt: facts.attemptedAt.toISOString(),
  });
}

async function setSubscriptionStatus(tx: Tx, id: string, status: string): Promise<void> {
  await tx.updateTable('subscriptions').set({ status }).where('id', '=', id).execute();
  const sub = await tx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  if (sub.user_id || sub.org_id) await addToOutbox(tx, subscriptionUpdated, subscriptionState(sub));
}

/**
 * Applies the provider's view of a subscription, unless an event newer than this one was
 * applied already (webhooks may arrive out of order). A canceled subscription stays canceled.
 */
export async function applySubscriptionState(tx: Tx, sub: Subscription, state: {
  status: string; periodStart: Date | null; periodEnd: Date | null; cancelAtPeriodEnd: boolean; observedAt: Date;
}): Promise<boolean> {
  if (sub.provider_updated_at && new Date(sub.provider_updated_at) > state.observedAt) return false;
  if (sub.status === 'canceled' && state.status !== 'canceled') return false;
  const becameCanceled = state.status === 'canceled' && sub.status !== 'canceled';
  await tx.updateTable('subscriptions').set({
    status: state.status,
    ...(state.periodStart ? { current_period_start: state.periodStart } : {}),
    ...(state.periodEnd ? { current_period_end: state.periodEnd } : {}),
    cancel_at_period_end: state.cancelAtPeriodEnd,
    provider_updated_at: state.observedAt,
    ...(becameCanceled ? { canceled_at: state.observedAt } : {}),
  }).where('id', '=', sub.id).execute();
  const after = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
  if (after.user_id || after.org_id) {
    if (becameCanceled) await addToOutbox(tx, subscriptionCanceled, { ...subscriptionState(after), canceledAt: state.observedAt.toISOString() });
    else await addToOutbox(tx, subscriptionUpdated, subscriptionState(after));
  }
  return true;
}

/** The subscription gained its owner; from here on its events name who it belongs to. */
export async function assignOwner(tx: Tx, sub: Subscription, owner: { userId: string; orgId: string | null }): Promise<Subscription> {
  await tx.updateTable('subscriptions').set({ user_id: owner.userId, org_id: owner.orgId }).where('id', '=', sub.id).execute();
  await tx.updateTable('invoices').set({ user_id: owner.userId, org_id: owner.orgId }).where('subscription_id', '=', sub.id).execute();
  if (sub.customer_id) await tx.updateTable('customers').set({ user_id: owner.userId }).where('id', '=', sub.customer_id).execute();
  const after = await tx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
  if (after.status === 'active') await addToOutbox(tx, subscriptionActivated, subscriptionState(after));
  return after;
}

