import { cohortOffsets, monthsBetween, planCodes, planDisplayName, shiftMonth } from '@qw/contracts';
import type { ChurnMonthly } from './api/get-churn';
import type { CohortRetention } from './api/get-cohorts';
import type { Funnel } from './api/get-funnel';
import type { MrrMovements } from './api/get-mrr-movements';
import type { RevenueDaily } from './api/get-revenue-daily';
import type { RevenueMonthly } from './api/get-revenue-monthly';
import type { SubscriptionsDaily } from './api/get-subscriptions-daily';

/**
 * The answers of the analytics API shaped for charts and tables, as plain functions of data: when
 * a panel counts as empty, the months of a span, revenue pivoted by plan, the cohort grid.
 */

export function revenueDailyIsEmpty(data: RevenueDaily): boolean {
  return data.rows.every((row) => row.amount_cents === 0 && row.refunded_cents === 0);
}

export function subscriptionsDailyIsEmpty(data: SubscriptionsDaily): boolean {
  return data.rows.every((row) => row.new_subs === 0 && row.cancels === 0);
}

export function revenueMonthlyIsEmpty(data: RevenueMonthly): boolean {
  return data.rows.every((row) => row.amount_cents === 0 && row.refunded_cents === 0);
}

export function mrrMovementsIsEmpty(data: MrrMovements): boolean {
  return data.rows.every(
    (row) =>
      row.mrr_end_cents === 0 &&
      row.new_cents === 0 &&
      row.expansion_cents === 0 &&
      row.contraction_cents === 0 &&
      row.churn_cents === 0 &&
      row.reactivation_cents === 0,
  );
}

export function cohortsIsEmpty(data: CohortRetention): boolean {
  return data.cohorts.length === 0 || data.rows.length === 0;
}

/** Churn needs customers at a month's start; with none in any month there is nothing to show. */
export function churnIsEmpty(data: ChurnMonthly): boolean {
  return data.rows.every((row) => row.churn_pct === null && row.revenue_churn_pct === null);
}

export function funnelIsEmpty(data: Funnel): boolean {
  return data.rows.every((row) => row.visits === 0 && row.signups === 0 && row.first_paid === 0);
}

/** The first day of every month from the month of `from` to the month of `to`, oldest first. */
export function monthsOfSpan(from: string, to: string): string[] {
  const count = monthsBetween(from, to);
  if (count < 0) return [];
  return Array.from({ length: count + 1 }, (_, index) => shiftMonth(from, -index));
}

export type PlanRevenue = { code: string; name: string; amounts: number[] };
export type RevenueByPlan = {
  months: string[];
  plans: PlanRevenue[];
  /** Gross per month, all plans. */
  totals: number[];
  refunds: number[];
};

/** Gross revenue per month and plan, every month of the span present (zeros included); plans in catalog order. */
export function revenueByPlan(data: RevenueMonthly): RevenueByPlan {
  const months = monthsOfSpan(data.from, data.to);
  const seen = new Set(months);
  for (const row of data.rows) {
    const month = `${row.month_start.slice(0, 7)}-01`;
    if (!seen.has(month)) {
      seen.add(month);
      months.push(month);
    }
  }
  months.sort();
  const index = new Map(months.map((month, position) => [month, position]));
  const codes = [...new Set(data.rows.map((row) => row.plan_code))].sort(
    (a, b) => planRank(a) - planRank(b) || a.localeCompare(b),
  );
  const plans: PlanRevenue[] = codes.map((code) => ({
    code,
    name: planDisplayName(code),
    amounts: months.map(() => 0),
  }));
  const byCode = new Map(plans.map((plan) => [plan.code, plan]));
  const totals = months.map(() => 0);
  const refunds = months.map(() => 0);
  for (const row of data.rows) {
    const position = index.get(`${row.month_start.slice(0, 7)}-01`)!;
    byCode.get(row.plan_code)!.amounts[position]! += row.amount_cents;
    totals[position]! += row.amount_cents;
    refunds[position]! += row.refunded_cents;
  }
  return { months, plans, totals, refunds };
}

function planRank(code: string): number {
  const rank = (planCodes as readonly string[]).indexOf(code);
  return rank === -1 ? planCodes.length : rank;
}

export type CohortRow = {
  month: string;
  customers: number;
  /** Months +0 to +11; null where the month has not begun yet. */
  cells: Array<{ retention_pct: number; customers: number } | null>;
};

/** One row per cohort (oldest first), with a cell for each month +0 to +11 that has begun. */
export function cohortGrid(data: CohortRetention): CohortRow[] {
  const rows = new Map<string, CohortRow>();
  for (const cohort of [...data.cohorts].sort((a, b) => a.cohort_month.localeCompare(b.cohort_month)))
    rows.set(cohort.cohort_month, {
      month: cohort.cohort_month,
      customers: cohort.customers,
      cells: Array.from({ length: cohortOffsets }, () => null),
    });
  for (const cell of data.rows) {
    const row = rows.get(cell.cohort_month);
    if (!row || cell.month_offset < 0 || cell.month_offset >= cohortOffsets) continue;
    row.cells[cell.month_offset] = { retention_pct: cell.retention_pct, customers: cell.customers };
  }
  return [...rows.values()];
}

export type FunnelTotals = { visits: number; signups: number; first_paid: number };

export function funnelTotals(data: Funnel): FunnelTotals {
  return data.rows.reduce(
    (sum, row) => ({
      visits: sum.visits + row.visits,
      signups: sum.signups + row.signups,
      first_paid: sum.first_paid + row.first_paid,
    }),
    { visits: 0, signups: 0, first_paid: 0 },
  );
}
