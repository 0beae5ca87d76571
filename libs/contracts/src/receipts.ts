/**
 * Receipts (issue #15): the words a receipt shares between the mail (identity) and the printable
 * page (web). No schema here, so the web may import it without TypeBox.
 */

/** Billing's sequential invoice number as customers see it: QW-000123. */
export function invoiceNumberText(n: number | string): string {
  return `QW-${String(n).padStart(6, '0')}`;
}

/** 'Visa ending in 4242'; null when the provider did not say. */
export function cardText(brand: string | null | undefined, last4: string | null | undefined): string | null {
  if (!last4) return null;
  return `${brand ? brand : 'Card'} ending in ${last4}`;
}

/** The card brand of a number by its first digits (the test provider's own cards; Stripe says the brand itself). */
export function cardBrandOf(digits: string): string {
  if (/^4/.test(digits)) return 'Visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'Mastercard';
  if (/^3[47]/.test(digits)) return 'American Express';
  if (/^6(011|5)/.test(digits)) return 'Discover';
  return 'Card';
}

/** Stripe's brand codes (visa, mastercard, amex…) as a receipt writes them. */
export function cardBrandName(code: string | null | undefined): string | null {
  if (!code) return null;
  const names: Record<string, string> = {
    visa: 'Visa',
    mastercard: 'Mastercard',
    amex: 'American Express',
    discover: 'Discover',
    diners: 'Diners Club',
    jcb: 'JCB',
    unionpay: 'UnionPay',
  };
  return names[code.toLowerCase()] ?? code;
}

/** '24 Nov': a day as a receipt's description writes it (UTC, like the periods billing records). */
export function receiptDayText(value: string | Date): string {
  return new Date(value).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
}

/** What billing records about why an invoice was made (null: recorded before issue #26). */
export type InvoiceDescriptionFacts = {
  reason: string | null;
  plan_name: string;
  /** A plan change's invoice: the plan it moved from, with its monthly price. */
  from: { name: string; priceCents: number } | null;
  /** The new plan's monthly price (an upgrade costs more). */
  price_cents: number;
  period_start: string | Date;
  period_end: string | Date;
};

/**
 * What an invoice is for, on its receipt and in the invoice list (issue #26): "Upgrade from
 * Personal to Gaming, prorated for 24 Nov – 24 Dec", "Gaming plan, first month", "Gaming plan,
 * monthly renewal"; an invoice recorded before billing kept the reason reads as its plan alone.
 */
export function invoiceDescriptionText(facts: InvoiceDescriptionFacts): string {
  const period = `${receiptDayText(facts.period_start)} – ${receiptDayText(facts.period_end)}`;
  if (facts.reason === 'plan_change') {
    if (!facts.from) return `Change to ${facts.plan_name}, prorated for ${period}`;
    const kind = facts.price_cents > facts.from.priceCents ? 'Upgrade' : 'Change';
    return `${kind} from ${facts.from.name} to ${facts.plan_name}, prorated for ${period}`;
  }
  if (facts.reason === 'checkout') return `${facts.plan_name} plan, first month`;
  if (facts.reason === 'renewal') return `${facts.plan_name} plan, monthly renewal`;
  return `${facts.plan_name} plan`;
}

/** Who sells: the top of every receipt. */
export const receiptSeller = { name: 'Quietwire', description: 'WireGuard VPN subscriptions' } as const;
