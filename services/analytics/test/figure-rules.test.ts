import { describe, expect, it } from 'vitest';
import { cohortTable, endDay, monthSpan, percent, runningMonths, windowOf } from '../src/figures/figure-rules.ts';

describe('windows of days and spans of months', () => {
  it('a window of N days ends with the day asked about, today unless as_of says otherwise', () => {
    expect(endDay(undefined, '2026-03-31')).toBe('2026-03-31');
    expect(endDay('2026-03-01', '2026-03-31')).toBe('2026-03-01');
    expect(windowOf(1, '2026-03-31')).toEqual({ days: 1, from: '2026-03-31', to: '2026-03-31' });
    expect(windowOf(30, '2026-03-31')).toEqual({ days: 30, from: '2026-03-02', to: '2026-03-31' });
  });
  it('as_of may not be in the future', () => {
    expect(() => endDay('2026-04-01', '2026-03-31')).toThrow(
      expect.objectContaining({ code: 'validation_failed', message: 'as_of cannot be in the future.' }),
    );
  });
  it('whole months from the first day of the month N - 1 before to the end day', () => {
    expect(monthSpan(1, '2026-03-31')).toEqual({ from: '2026-03-01', to: '2026-03-31', lastMonth: '2026-03-01' });
    expect(monthSpan(12, '2026-03-15')).toEqual({ from: '2025-04-01', to: '2026-03-15', lastMonth: '2026-03-01' });
  });
});

describe('percent', () => {
  it('one decimal, or null with nothing to divide by', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(2, 3)).toBe(66.7);
    expect(percent(0, 5)).toBe(0);
    expect(percent(3, 0)).toBeNull();
  });
});

describe('runningMonths: MRR and paying customers at each month start and end', () => {
  const month = (month_start: string, moves: Record<string, number>) => ({ month_start, ...moves });
  it('starts from what came before the span and adds each month’s net movement', () => {
    const rows = runningMonths(
      [
        month('2026-01-01', { new_cents: 1000, new_customers: 1 }),
        month('2026-02-01', { expansion_cents: 500, churn_cents: 300, churned_customers: 1 }),
        month('2026-03-01', { reactivation_cents: 300, reactivated_customers: 1, contraction_cents: 200 }),
      ],
      { mrr: 700, customers: 2 },
    );
    expect(rows.map((row) => [row.month_start, row.net, row.start, row.end])).toEqual([
      ['2026-01-01', 1000, { mrr: 700, customers: 2 }, { mrr: 1700, customers: 3 }],
      ['2026-02-01', 200, { mrr: 1700, customers: 3 }, { mrr: 1900, customers: 2 }],
      ['2026-03-01', 100, { mrr: 1900, customers: 2 }, { mrr: 2000, customers: 3 }],
    ]);
    expect(rows[1]!.n('churn_cents')).toBe(300);
    expect(rows[1]!.n('new_cents')).toBe(0);
  });
  it('counts read as text (sums from Postgres) are numbers', () => {
    const [row] = runningMonths([{ month_start: '2026-01-01', new_cents: '250' }], { mrr: 0, customers: 0 });
    expect(row!.net).toBe(250);
  });
});

describe('cohortTable', () => {
  const span = monthSpan(3, '2026-03-31');
  it('every cohort of the span with its size; the months begun by the end day with their retention', () => {
    const cells = new Map([
      ['2026-01-01|0', 4],
      ['2026-01-01|1', 3],
      ['2026-01-01|2', 1],
      ['2026-03-01|0', 2],
    ]);
    expect(cohortTable(cells, 3, span)).toEqual({
      from: '2026-01-01',
      to: '2026-03-31',
      cohorts: [
        { cohort_month: '2026-01-01', customers: 4 },
        { cohort_month: '2026-02-01', customers: 0 },
        { cohort_month: '2026-03-01', customers: 2 },
      ],
      rows: [
        { cohort_month: '2026-01-01', month_offset: 0, customers: 4, retention_pct: 100 },
        { cohort_month: '2026-01-01', month_offset: 1, customers: 3, retention_pct: 75 },
        { cohort_month: '2026-01-01', month_offset: 2, customers: 1, retention_pct: 25 },
        { cohort_month: '2026-03-01', month_offset: 0, customers: 2, retention_pct: 100 },
      ],
    });
  });
  it('a month with no cell shows 0 retained once it has begun', () => {
    const cells = new Map([['2026-02-01|0', 5]]);
    expect(cohortTable(cells, 3, span).rows).toEqual([
      { cohort_month: '2026-02-01', month_offset: 0, customers: 5, retention_pct: 100 },
      { cohort_month: '2026-02-01', month_offset: 1, customers: 0, retention_pct: 0 },
    ]);
  });
});
