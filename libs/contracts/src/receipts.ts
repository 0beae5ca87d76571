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

/** Who sells: the top of every receipt. */
export const receiptSeller = { name: 'Quietwire', description: 'WireGuard VPN subscriptions' } as const;
