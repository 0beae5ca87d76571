import type { Kysely } from 'kysely';
import {
  type BillingDetails,
  cardText,
  findPlan,
  formatUsd,
  invoiceNumberText,
  receiptMailFactsRpc,
} from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { MailMessage, MailRenderer } from '@qw/platform/mailer';
import type { IdentityDatabase } from '../database.ts';
import { layout } from './identity-mail.ts';

/**
 * Billing's mails (issue #15): a receipt for every payment, and notices for a renewal that failed,
 * a plan set to end, a plan that ended and a refund. Billing's events carry no address: a job
 * holds the event's facts and the person's id, and the address is looked up when it is sent.
 */
export const billingMailKinds = {
  receipt: 'billing.receipt',
  paymentFailed: 'billing.payment-failed',
  cancelScheduled: 'billing.cancel-scheduled',
  planEnded: 'billing.plan-ended',
  refund: 'billing.refund',
} as const;

export type ReceiptFacts = {
  invoiceId: string;
  userId: string;
  orgId: string | null;
  planCode: string;
  amountCents: number;
  currency: string;
  paidAt: string;
  periodStart: string;
  periodEnd: string;
  reason?: 'checkout' | 'renewal' | 'plan_change' | undefined;
  invoiceNumber?: number | undefined;
  cardBrand?: string | null | undefined;
  cardLast4?: string | null | undefined;
};

export type PaymentFailedFacts = {
  invoiceId: string;
  userId: string;
  orgId: string | null;
  planCode: string;
  amountCents: number;
  currency?: string | undefined;
  attemptedAt: string;
  invoiceNumber?: number | undefined;
  cardBrand?: string | null | undefined;
  cardLast4?: string | null | undefined;
};

export type PlanNoticeFacts = {
  subscriptionId: string;
  userId: string;
  orgId: string | null;
  planCode: string;
  /** When it ends (set to end) or ended. */
  at: string;
};

export type RefundFacts = {
  refundId: string;
  invoiceId: string;
  userId: string;
  orgId: string | null;
  amountCents: number;
  issuedAt: string;
  currency?: string | undefined;
  planCode?: string | undefined;
  invoiceNumber?: number | undefined;
};

/** $9.99 for US dollars (the catalog's way); another currency as '12.50 EUR'. */
export function moneyText(cents: number, currency = 'USD'): string {
  return currency.toUpperCase() === 'USD'
    ? `${formatUsd(cents)} USD`
    : `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
}

const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);
const planName = (code: string | undefined) => (code ? (findPlan(code)?.name ?? code) : 'Quietwire');
const billingPath = (orgId: string | null) => (orgId ? '/app/business/billing' : '/app/personal/billing');

function message(to: string, subject: string, title: string, lines: string[], action: { label: string; url: string }) {
  return {
    to,
    subject,
    text: `${lines.join('\n')}\n\n${action.label}: ${action.url}\n`,
    html: layout(title, lines, action),
  } satisfies MailMessage;
}

/** What billing says of the invoice when the mail is sent: its description and whom it is issued to. */
export type ReceiptMailExtras = { description: string; billingDetails: BillingDetails | null };

/** The billing details as the receipt lists them: company, address line by line, VAT ID. */
function billedToLines(details: BillingDetails | null): string[] {
  if (!details) return [];
  const parts = [
    details.company_name,
    ...details.address.split('\n'),
    ...(details.vat_id ? [`VAT ID: ${details.vat_id}`] : []),
  ].filter(Boolean);
  return parts.length > 0 ? [`Billed to: ${parts.join(', ')}`] : [];
}

export function receiptMail(
  to: string,
  facts: ReceiptFacts,
  publicUrl: string,
  extras: ReceiptMailExtras | null = null,
): MailMessage {
  const number = facts.invoiceNumber ? invoiceNumberText(facts.invoiceNumber) : null;
  const card = cardText(facts.cardBrand, facts.cardLast4);
  const lines = [
    'Thank you for your payment. This is your receipt.',
    ...(number ? [`Receipt number: ${number}`] : []),
    `Date: ${day(facts.paidAt)}`,
    `Plan: Quietwire ${planName(facts.planCode)}`,
    ...(extras ? [`For: ${extras.description}`] : []),
    `Period: ${day(facts.periodStart)} – ${day(facts.periodEnd)}`,
    `Amount paid: ${moneyText(facts.amountCents, facts.currency)}`,
    ...(card ? [`Paid with: ${card}`] : []),
    ...billedToLines(extras?.billingDetails ?? null),
  ];
  return message(to, number ? `Your Quietwire receipt ${number}` : 'Your Quietwire receipt', 'Your receipt', lines, {
    label: 'View or print the receipt',
    url: new URL(`/billing/invoices/${facts.invoiceId}`, publicUrl).toString(),
  });
}

export function paymentFailedMail(to: string, facts: PaymentFailedFacts, publicUrl: string): MailMessage {
  const card = cardText(facts.cardBrand, facts.cardLast4);
  const number = facts.invoiceNumber ? ` (invoice ${invoiceNumberText(facts.invoiceNumber)})` : '';
  const lines = [
    `We could not renew your Quietwire ${planName(facts.planCode)} plan: the payment of ${moneyText(facts.amountCents, facts.currency)} on ${day(facts.attemptedAt)}${number} was declined${card ? ` (${card})` : ''}.`,
    'Your devices keep working while we try again. Update your card in Billing so your plan does not end.',
  ];
  return message(to, 'Your Quietwire renewal payment failed', 'Your renewal payment failed', lines, {
    label: 'Open Billing',
    url: new URL(billingPath(facts.orgId), publicUrl).toString(),
  });
}

export function cancelScheduledMail(to: string, facts: PlanNoticeFacts, publicUrl: string): MailMessage {
  const lines = [
    `Your Quietwire ${planName(facts.planCode)} plan is canceled and will not renew.`,
    `It stays active until ${day(facts.at)}; your devices keep working until then.`,
    'If you did not cancel it, or you change your mind, open Billing.',
  ];
  return message(to, 'Your Quietwire plan is canceled', 'Your plan is canceled', lines, {
    label: 'Open Billing',
    url: new URL(billingPath(facts.orgId), publicUrl).toString(),
  });
}

export function planEndedMail(to: string, facts: PlanNoticeFacts, publicUrl: string): MailMessage {
  const lines = [
    `Your Quietwire ${planName(facts.planCode)} plan ended on ${day(facts.at)}.`,
    'The devices on it are inactive now. Choose a plan again in Billing to turn them back on.',
  ];
  return message(to, 'Your Quietwire plan has ended', 'Your plan has ended', lines, {
    label: 'Open Billing',
    url: new URL(billingPath(facts.orgId), publicUrl).toString(),
  });
}

export function refundMail(to: string, facts: RefundFacts, publicUrl: string): MailMessage {
  const number = facts.invoiceNumber ? ` for receipt ${invoiceNumberText(facts.invoiceNumber)}` : '';
  const lines = [
    `We refunded ${moneyText(facts.amountCents, facts.currency)}${number} (Quietwire ${planName(facts.planCode)}) on ${day(facts.issuedAt)}.`,
    'The money goes back to the card that paid; banks take up to 10 business days to show it.',
  ];
  return message(to, 'Your Quietwire refund', 'Your refund', lines, {
    label: 'View the receipt',
    url: new URL(`/billing/invoices/${facts.invoiceId}`, publicUrl).toString(),
  });
}

/** The mail queue's renderers: the person's address at sending time (none any more: nothing is sent). */
export function billingMailRenderers(deps: {
  db: Kysely<IdentityDatabase>;
  publicUrl: string;
  /** Asks billing for a receipt's description and billing details when it is sent. */
  rpc: Pick<RpcClient, 'request'>;
}): Record<string, MailRenderer> {
  const addressOf = async (userId: unknown) => {
    if (typeof userId !== 'string') return undefined;
    const row = await deps.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
    return row?.email;
  };
  const render =
    <T extends { userId: string }>(mail: (to: string, facts: T, publicUrl: string) => MailMessage): MailRenderer =>
    async (payload) => {
      const to = await addressOf(payload.userId);
      return to ? mail(to, payload as T, deps.publicUrl) : null;
    };
  // Billing not answering throws: the queue tries again later, so no receipt goes out without them.
  const receipt: MailRenderer = async (payload) => {
    const to = await addressOf(payload.userId);
    if (!to) return null;
    const facts = payload as ReceiptFacts;
    const answer = await deps.rpc.request(receiptMailFactsRpc, { invoice_id: facts.invoiceId });
    return receiptMail(to, facts, deps.publicUrl, {
      description: answer.description,
      billingDetails: answer.billing_details,
    });
  };
  return {
    [billingMailKinds.receipt]: receipt,
    [billingMailKinds.paymentFailed]: render(paymentFailedMail),
    [billingMailKinds.cancelScheduled]: render(cancelScheduledMail),
    [billingMailKinds.planEnded]: render(planEndedMail),
    [billingMailKinds.refund]: render(refundMail),
  };
}
