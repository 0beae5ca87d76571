import { randomBytes } from 'node:crypto';
import { AppError, cardBrandOf } from '@qw/contracts';
import type { CheckoutRequest, PaymentProvider } from './payment-provider.ts';

/** Cards the test checkout page knows; any other well-formed number is accepted as paid. */
export const testCards = {
  succeeds: '4242424242424242',
  declines: '4000000000000002',
  /** Pays the checkout, then every renewal fails (Stripe's card that attaches but declines later). */
  renewalsFail: '4000000000000341',
} as const;

/**
 * The local provider for development and tests: its own checkout page (marked as a test, no
 * card is charged) at /test-checkout/<id> and its own billing portal at /billing/test-portal.
 */
export class TestPaymentProvider implements PaymentProvider {
  readonly name = 'test' as const;
  constructor(private readonly publicUrl: string) {}

  async createCheckout(_request: CheckoutRequest) {
    const id = `cs_test_${randomBytes(12).toString('hex')}`;
    return { id, url: new URL(`/test-checkout/${id}`, this.publicUrl).toString() };
  }

  async portalUrl(input: { returnUrl: string }) {
    const url = new URL('/billing/test-portal', this.publicUrl);
    url.searchParams.set('return', new URL(input.returnUrl).pathname);
    return url.toString();
  }

  async refund() {
    // Nothing was charged, so nothing goes back; the refund is recorded by billing.
  }

  async cancelNow() {
    // The test provider keeps no subscriptions of its own: billing's record is the only one.
  }
}

/** Luhn check, so a typo on the test page reads as a typo. */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A card typed on the test provider's pages (its checkout, its portal's Update card): a typo reads
 * as a typo and the declining test card declines; answers what receipts name of it.
 */
export function testCardOf(input: string): { brand: string; last4: string; digits: string } {
  const digits = input.replace(/[\s-]/g, '');
  if (!isCardNumber(digits))
    throw new AppError('validation_failed', 'That card number is not valid. Use the test card 4242 4242 4242 4242.', {
      field: 'card_number',
    });
  if (digits === testCards.declines)
    throw new AppError('payment_declined', 'Your card was declined. (Test card 4000 0000 0000 0002 always declines.)', {
      field: 'card_number',
    });
  return { brand: cardBrandOf(digits), last4: digits.slice(-4), digits };
}
