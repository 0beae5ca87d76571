import type { Kysely, Selectable } from 'kysely';
import type { Logger } from 'pino';
import { invoiceNumberText, type BillingAccountData } from '@qw/contracts';
import type { BillingDatabase } from '../database.ts';
import { clockNow } from '../clock.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { applySubscriptionState } from '../subscriptions/ledger.ts';

type Db = Kysely<BillingDatabase>;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** An invoice as the person's export and the console's page of them list it: number, plan, amount, period, status. */
export function invoiceSummary(invoice: Selectable<BillingDatabase['invoices']>) {
  return {
    id: invoice.id,
    number: invoice.number ? invoiceNumberText(Number(invoice.number)) : null,
    plan: invoice.plan_code,
    amount_cents: invoice.amount_cents,
    currency: invoice.currency,
    status: invoice.status,
    period_start: iso(invoice.period_start),
    period_end: iso(invoice.period_end),
    paid_at: iso(invoice.paid_at),
  };
}

/** The person's plans and payments, for their export: amounts, periods, the card's brand and last digits. */
export async function exportBillingData(db: Db, userId: string): Promise<BillingAccountData> {
  const [subscriptions, invoices] = await Promise.all([
    db.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).orderBy('created_at').execute(),
    db.selectFrom('invoices').selectAll().where('user_id', '=', userId).orderBy('period_start').execute(),
  ]);
  return {
    subscriptions: subscriptions.map((sub) => ({
      id: sub.id,
      plan: sub.plan_code,
      status: sub.status,
      organization_id: sub.org_id,
      started_at: iso(sub.started_at),
      current_period_end: iso(sub.current_period_end),
      canceled_at: iso(sub.canceled_at),
    })),
    invoices: invoices.map((invoice) => ({
      ...invoiceSummary(invoice),
      card: invoice.card_last4 ? `${invoice.card_brand ?? 'Card'} ending ${invoice.card_last4}` : null,
    })),
  };
}

/**
 * A deleted account's part in billing: its own plans end now in the ledger (whose
 * `subscription.canceled` ends the entitlements) and are marked to be cancelled at the provider
 * (`cancelDueAtProvider`, after the commit and retried), and the addresses and card digits billing
 * kept are erased. Payments stay as tax records, under the account's id only. A plan an
 * organization pays for is the organization's: identity refused the deletion while the person was
 * its last owner, so it goes on for the others.
 */
export async function forgetAccount(tx: Db, userId: string): Promise<void> {
  const owned = await tx
    .selectFrom('subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .where('status', 'not in', ['canceled', 'incomplete_expired'])
    .forUpdate()
    .execute();
  for (const sub of owned) {
    const now = await clockNow(tx, sub.test_clock_id);
    const lastSeen = sub.provider_updated_at ? new Date(sub.provider_updated_at) : now;
    await applySubscriptionState(tx, sub, {
      status: 'canceled',
      periodStart: null,
      periodEnd: null,
      cancelAtPeriodEnd: false,
      observedAt: lastSeen > now ? lastSeen : now,
    });
    if (sub.provider_subscription_id)
      await tx.updateTable('subscriptions').set({ provider_cancel_due: true }).where('id', '=', sub.id).execute();
  }
  const customers = tx.selectFrom('customers').select('id').where('user_id', '=', userId);
  await tx.updateTable('customers').set({ email: '' }).where('user_id', '=', userId).execute();
  await tx
    .updateTable('checkout_sessions')
    .set({ email: null, org_name: null })
    .where((eb) =>
      eb.or([eb('claimed_by', '=', userId), eb('buyer_id', '=', userId), eb('customer_id', 'in', customers)]),
    )
    .execute();
  await tx.updateTable('refunds').set({ email: null }).where('user_id', '=', userId).execute();
  await tx
    .updateTable('subscriptions')
    .set({ card_brand: null, card_last4: null })
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .execute();
  await tx
    .updateTable('invoices')
    .set({ card_brand: null, card_last4: null })
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .execute();
  // The person's own billing details (company, address, VAT ID); an organization's stay its own.
  await tx.deleteFrom('billing_details').where('user_id', '=', userId).execute();
}

/**
 * Cancels at the provider the plans of deleted accounts still marked, each with its own
 * idempotency key (a repeat is harmless); one that fails stays marked for the next pass.
 */
export async function cancelDueAtProvider(db: Db, provider: PaymentProvider, logger: Logger): Promise<number> {
  const due = await db
    .selectFrom('subscriptions')
    .select(['id', 'provider_subscription_id'])
    .where('provider_cancel_due', '=', true)
    .limit(100)
    .execute();
  let cancelled = 0;
  for (const sub of due) {
    try {
      if (sub.provider_subscription_id)
        await provider.cancelNow({
          providerSubscriptionId: sub.provider_subscription_id,
          idempotencyKey: `delete-account-${sub.id}`,
        });
      await db.updateTable('subscriptions').set({ provider_cancel_due: false }).where('id', '=', sub.id).execute();
      cancelled++;
    } catch (error) {
      logger.warn(
        { err: error, subscriptionId: sub.id },
        "a deleted account's plan is not cancelled at the provider yet; retried",
      );
    }
  }
  return cancelled;
}
