import { refundWindowDays } from '@qw/contracts';

export type MoneyBackFacts = {
  /** The subscription's earliest paid invoice, if any. */
  firstPayment: { status: string; paidAt: Date | null } | undefined;
  /** How many of its invoices are paid (a renewal means the first month is long over). */
  paidInvoices: number;
  /** This customer (account or paid e-mail) already had the money back once. */
  usedBefore: boolean;
  now: Date;
};

export type MoneyBack =
  | { refund: true }
  | { refund: false; reason: 'no_payment' | 'outside_window' | 'renewed' | 'already_used' };

export function withinRefundWindow(paidAt: Date, now: Date): boolean {
  return now.getTime() - paidAt.getTime() <= refundWindowDays * 86_400_000;
}

/**
 * The 7-day money-back guarantee: the first payment, in full, when the plan ends within 7 days of
 * it, and once per customer, so buying again and cancelling again is not another free week.
 */
export function moneyBackDecision(facts: MoneyBackFacts): MoneyBack {
  const first = facts.firstPayment;
  if (first?.status !== 'paid' || !first.paidAt) return { refund: false, reason: 'no_payment' };
  if (!withinRefundWindow(first.paidAt, facts.now)) return { refund: false, reason: 'outside_window' };
  if (facts.paidInvoices !== 1) return { refund: false, reason: 'renewed' };
  if (facts.usedBefore) return { refund: false, reason: 'already_used' };
  return { refund: true };
}
