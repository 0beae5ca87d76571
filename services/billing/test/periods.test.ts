import { describe, expect, it } from 'vitest';
import { addMonths, clockTime, daysInSeconds } from '../src/clock.ts';
import { dueRenewals } from '../src/subscriptions/renewals.ts';

const at = (iso: string) => new Date(iso);

describe('month arithmetic', () => {
  it('keeps the day of the month, or the last day of a shorter month', () => {
    expect(addMonths(at('2026-01-15T08:00:00Z'))).toEqual(at('2026-02-15T08:00:00Z'));
    expect(addMonths(at('2026-01-31T08:00:00Z'))).toEqual(at('2026-02-28T08:00:00Z'));
    expect(addMonths(at('2028-01-31T08:00:00Z'))).toEqual(at('2028-02-29T08:00:00Z'));
    expect(addMonths(at('2026-03-31T23:59:59Z'))).toEqual(at('2026-04-30T23:59:59Z'));
    expect(addMonths(at('2026-12-31T00:00:00Z'))).toEqual(at('2027-01-31T00:00:00Z'));
    expect(addMonths(at('2026-01-31T00:00:00Z'), 2)).toEqual(at('2026-03-31T00:00:00Z'));
  });

  it('a test clock reads real time plus its offset', () => {
    expect(clockTime(at('2026-05-01T00:00:00Z'), daysInSeconds(31))).toEqual(at('2026-06-01T00:00:00Z'));
    expect(clockTime(at('2026-05-01T00:00:00Z'), 0)).toEqual(at('2026-05-01T00:00:00Z'));
    expect(daysInSeconds(0.5)).toBe(43_200);
  });
});

describe('renewals owed', () => {
  const periodEnd = at('2026-01-31T10:00:00Z');

  it('owes nothing before the period ends', () => {
    expect(dueRenewals({ periodEnd, cancelAtPeriodEnd: false }, at('2026-01-31T09:59:59Z'))).toEqual({
      periods: [],
      endedAt: null,
    });
    expect(dueRenewals({ periodEnd: null, cancelAtPeriodEnd: false }, at('2030-01-01T00:00:00Z')).periods).toEqual([]);
  });

  it('owes one month per month missed, each starting where the last ended', () => {
    expect(dueRenewals({ periodEnd, cancelAtPeriodEnd: false }, periodEnd).periods).toEqual([
      { start: periodEnd, end: at('2026-02-28T10:00:00Z') },
    ]);
    expect(dueRenewals({ periodEnd, cancelAtPeriodEnd: false }, at('2026-03-30T00:00:00Z')).periods).toEqual([
      { start: periodEnd, end: at('2026-02-28T10:00:00Z') },
      { start: at('2026-02-28T10:00:00Z'), end: at('2026-03-28T10:00:00Z') },
      { start: at('2026-03-28T10:00:00Z'), end: at('2026-04-28T10:00:00Z') },
    ]);
  });

  it('ends a plan set to cancel at the period end instead of renewing it', () => {
    expect(dueRenewals({ periodEnd, cancelAtPeriodEnd: true }, at('2026-05-01T00:00:00Z'))).toEqual({
      periods: [],
      endedAt: periodEnd,
    });
  });
});
