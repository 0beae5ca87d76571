import { describe, expect, it } from 'vitest';
import { analyticsFailureText, formatCents, formatInstant, formatPercent } from '../src/features/analytics/format';
import {
  churnIsEmpty,
  cohortGrid,
  funnelTotals,
  monthsOfSpan,
  revenueByPlan,
  revenueDailyIsEmpty,
} from '../src/features/analytics/series';
import { ApiError } from '../src/lib/api-client';

describe('analytics figures as the page writes them', () => {
  it('writes cents as USD with thousands separators and two decimals (spec §9: amount / 100)', () => {
    expect(formatCents(123_456)).toBe('$1,234.56');
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(-2_400)).toBe('-$24.00');
    expect(formatCents(123_456_789)).toBe('$1,234,567.89');
  });

  it('writes percents with one decimal, and a dash where there was nothing to divide by', () => {
    expect(formatPercent(5.4545)).toBe('5.5%');
    expect(formatPercent(100)).toBe('100.0%');
    expect(formatPercent(null)).toBe('—');
  });

  it('writes instants in UTC', () => {
    expect(formatInstant('2026-11-20T08:04:12.000Z')).toBe('2026-11-20 08:04 UTC');
    expect(formatInstant(null)).toBe('—');
    expect(formatInstant('not a date')).toBe('—');
  });

  it("shows the server's message, the connection message, or says the status", () => {
    expect(analyticsFailureText(new ApiError(403, 'forbidden', 'Admins only.'))).toBe('Admins only.');
    expect(analyticsFailureText(new ApiError(503, 'unavailable', 'Analytics is not answering.'))).toBe(
      'Analytics is not answering.',
    );
    expect(analyticsFailureText(new ApiError(0, 'network_error', 'We couldn’t reach Quietwire.'))).toBe(
      'We couldn’t reach Quietwire.',
    );
    expect(analyticsFailureText(new ApiError(502, 'http_502', 'Bad Gateway'))).toBe(
      'The figures could not be loaded (HTTP 502).',
    );
    expect(analyticsFailureText(new Error('boom'))).toBe('The figures could not be loaded.');
  });
});

describe('analytics series shaped for charts', () => {
  it('lists every month of a span, across a year end', () => {
    expect(monthsOfSpan('2025-11-01', '2026-02-14')).toEqual(['2025-11-01', '2025-12-01', '2026-01-01', '2026-02-01']);
    expect(monthsOfSpan('2026-02-01', '2026-01-01')).toEqual([]);
  });

  it('pivots revenue by month and plan: every month present, plans in catalog order, unknown codes last', () => {
    const pivot = revenueByPlan({
      from: '2026-09-01',
      to: '2026-11-23',
      rows: [
        { month_start: '2026-11-01', plan_code: 'legacy', amount_cents: 100, refunded_cents: 0 },
        { month_start: '2026-11-01', plan_code: 'gaming', amount_cents: 1_199, refunded_cents: 1_199 },
        { month_start: '2026-09-01', plan_code: 'personal', amount_cents: 799, refunded_cents: 0 },
        { month_start: '2026-11-01', plan_code: 'personal', amount_cents: 1_598, refunded_cents: 0 },
      ],
    });
    expect(pivot.months).toEqual(['2026-09-01', '2026-10-01', '2026-11-01']);
    expect(pivot.plans.map((plan) => [plan.code, plan.name, plan.amounts])).toEqual([
      ['personal', 'Personal', [799, 0, 1_598]],
      ['gaming', 'Gaming', [0, 0, 1_199]],
      ['legacy', 'legacy', [0, 0, 100]],
    ]);
    expect(pivot.totals).toEqual([799, 0, 2_897]);
    expect(pivot.refunds).toEqual([0, 0, 1_199]);
  });

  it('lays cohorts out oldest first, months +0 to +11, empty where a month has not begun', () => {
    const grid = cohortGrid({
      from: '2026-10-01',
      to: '2026-11-23',
      cohorts: [
        { cohort_month: '2026-11-01', customers: 4 },
        { cohort_month: '2026-10-01', customers: 10 },
      ],
      rows: [
        { cohort_month: '2026-10-01', month_offset: 0, customers: 10, retention_pct: 100 },
        { cohort_month: '2026-10-01', month_offset: 1, customers: 7, retention_pct: 70 },
        { cohort_month: '2026-11-01', month_offset: 0, customers: 4, retention_pct: 100 },
      ],
    });
    expect(grid.map((row) => row.month)).toEqual(['2026-10-01', '2026-11-01']);
    expect(grid[0]!.cells).toHaveLength(12);
    expect(grid[0]!.cells.slice(0, 3)).toEqual([
      { retention_pct: 100, customers: 10 },
      { retention_pct: 70, customers: 7 },
      null,
    ]);
    expect(grid[1]!.cells.filter(Boolean)).toHaveLength(1);
  });

  it('calls a span empty only when nothing happened in it', () => {
    const day = (amount: number, refunded: number) => ({
      day: '2026-11-01',
      amount_cents: amount,
      refunded_cents: refunded,
      net_cents: amount - refunded,
    });
    expect(revenueDailyIsEmpty({ from: '2026-11-01', to: '2026-11-01', rows: [day(0, 0)] })).toBe(true);
    expect(revenueDailyIsEmpty({ from: '2026-11-01', to: '2026-11-01', rows: [day(0, 799)] })).toBe(false);
    const month = (churn: number | null) => ({
      month_start: '2026-11-01',
      churn_pct: churn,
      revenue_churn_pct: churn,
      customers_at_start: churn === null ? 0 : 10,
      churned_customers: 0,
      mrr_at_start_cents: 0,
      churned_cents: 0,
      contraction_cents: 0,
    });
    // 0 % churn in a month with customers is a figure, not an empty chart.
    expect(churnIsEmpty({ from: '2026-11-01', to: '2026-11-01', rows: [month(null), month(0)] })).toBe(false);
    expect(churnIsEmpty({ from: '2026-11-01', to: '2026-11-01', rows: [month(null)] })).toBe(true);
  });

  it('totals the funnel', () => {
    expect(
      funnelTotals({
        from: '2026-11-01',
        to: '2026-11-02',
        has_visits: true,
        top_paths: [],
        rows: [
          { day: '2026-11-01', visits: 10, signups: 2, first_paid: 1 },
          { day: '2026-11-02', visits: 5, signups: 1, first_paid: 0 },
        ],
      }),
    ).toEqual({ visits: 15, signups: 3, first_paid: 1 });
  });
});
