import { describe, expect, it } from 'vitest';
import { claimNeedsVerifiedEmail } from '../src/checkout/claim-rules.ts';

const paidAt = new Date('2026-04-01T12:00:00Z');
const claimer = (createdAt: string, emailVerified = false) => ({
  email: 'buyer@example.com',
  emailVerified,
  createdAt: new Date(createdAt),
});

describe('who may claim a purchase without a confirmed e-mail', () => {
  it('the account the buyer made after paying', () => {
    expect(claimNeedsVerifiedEmail(claimer('2026-04-01T12:00:01Z'), paidAt)).toBe(false);
  });

  it('not an account made before the payment (it may be someone who signed up with the address)', () => {
    expect(claimNeedsVerifiedEmail(claimer('2026-03-01T00:00:00Z'), paidAt)).toBe(true);
    expect(claimNeedsVerifiedEmail(claimer('2026-04-01T12:00:00Z'), paidAt)).toBe(true);
    expect(claimNeedsVerifiedEmail(claimer('2026-04-02T00:00:00Z'), null)).toBe(true);
  });

  it('any account whose e-mail is confirmed', () => {
    expect(claimNeedsVerifiedEmail(claimer('2026-03-01T00:00:00Z', true), paidAt)).toBe(false);
    expect(claimNeedsVerifiedEmail(claimer('2026-03-01T00:00:00Z', true), null)).toBe(false);
  });
});
