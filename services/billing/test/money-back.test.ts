import { describe, expect, it } from 'vitest';
import { moneyBackDecision, withinRefundWindow } from '../src/refunds/money-back.ts';

const paidAt = new Date('2026-03-10T12:00:00Z');
const later = (ms: number) => new Date(paidAt.getTime() + ms);
const day = 86_400_000;
const facts = {
  firstPayment: { status: 'paid', paidAt },
  paidInvoices: 1,
  usedBefore: false,
  now: later(2 * day),
};

describe('the 7-day money-back refund', () => {
  it('refunds a first payment cancelled within 7 days, up to the last millisecond of the seventh day', () => {
    expect(moneyBackDecision(facts)).toEqual({ refund: true });
    expect(moneyBackDecision({ ...facts, now: paidAt })).toEqual({ refund: true });
    expect(moneyBackDecision({ ...facts, now: later(7 * day) })).toEqual({ refund: true });
    expect(moneyBackDecision({ ...facts, now: later(7 * day + 1) })).toEqual({
      refund: false,
      reason: 'outside_window',
    });
    expect(withinRefundWindow(paidAt, later(7 * day))).toBe(true);
    expect(withinRefundWindow(paidAt, later(7 * day + 1))).toBe(false);
  });

  it('refunds nothing without a paid first payment', () => {
    expect(moneyBackDecision({ ...facts, firstPayment: undefined })).toEqual({ refund: false, reason: 'no_payment' });
    expect(moneyBackDecision({ ...facts, firstPayment: { status: 'refunded', paidAt } })).toEqual({
      refund: false,
      reason: 'no_payment',
    });
    expect(moneyBackDecision({ ...facts, firstPayment: { status: 'paid', paidAt: null } })).toEqual({
      refund: false,
      reason: 'no_payment',
    });
  });

  it('refunds nothing once the plan renewed', () => {
    expect(moneyBackDecision({ ...facts, paidInvoices: 2 })).toEqual({ refund: false, reason: 'renewed' });
  });

  it('is given once per customer', () => {
    expect(moneyBackDecision({ ...facts, usedBefore: true })).toEqual({ refund: false, reason: 'already_used' });
  });
});
