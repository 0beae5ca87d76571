import {
  AppError,
  cohortOffsets,
  type CohortRetention,
  monthsBetween,
  shiftDay,
  shiftMonth,
  utcDay,
} from '@qw/contracts';

/**
 * The figures' rules on data already read: windows and spans, percentages, running MRR over
 * months, the cohort table. figures.ts reads the counters; these decide what they add up to.
 */
export type Window = { from: string; to: string; days: number };
export type MonthSpan = { from: string; to: string; lastMonth: string };

export const toNumber = (value: unknown) => Number(value ?? 0);

/** Percent with one decimal, or null where there is nothing to divide by. */
export function percent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part * 1000) / whole) / 10 : null;
}

/** The last day the figures cover: `as_of`, which may not be in the future, or today. */
export function endDay(asOf: string | undefined, today = utcDay(new Date())): string {
  if (!asOf) return today;
  if (asOf > today) throw new AppError('validation_failed', 'as_of cannot be in the future.', { field: 'as_of' });
  return asOf;
}

export function windowOf(days: number, asOf: string | undefined): Window {
  const to = endDay(asOf);
  return { days, from: shiftDay(to, days - 1), to };
}

/** Whole months: from the first day of the month `months - 1` before the end's to the end's month. */
export function monthSpan(months: number, asOf: string | undefined): MonthSpan {
  const to = endDay(asOf);
  return { from: shiftMonth(to, months - 1), to, lastMonth: shiftMonth(to, 0) };
}

type Totals = { mrr: number; customers: number };

/**
 * Each month's movements with MRR and paying customers at its start and end, running on from
 * `base` (everything before the span).
 */
export function runningMonths(rows: ReadonlyArray<{ month_start: string } & Record<string, unknown>>, base: Totals) {
  let { mrr, customers } = base;
  return rows.map((row) => {
    const n = (name: string) => toNumber(row[name]);
    const net =
      n('new_cents') + n('expansion_cents') + n('reactivation_cents') - n('contraction_cents') - n('churn_cents');
    const start = { mrr, customers };
    mrr += net;
    customers += n('new_customers') + n('reactivated_customers') - n('churned_customers');
    return { month_start: row.month_start, n, net, start, end: { mrr, customers } };
  });
}

/**
 * The cohorts of the span, each with the months +0 to +11 that have begun by the end day, from
 * the cells keyed `cohort|offset`.
 */
export function cohortTable(cells: ReadonlyMap<string, number>, months: number, span: MonthSpan): CohortRetention {
  const cohorts: CohortRetention['cohorts'] = [];
  const out: CohortRetention['rows'] = [];
  for (let back = months - 1; back >= 0; back--) {
    const cohort = shiftMonth(span.to, back);
    const size = cells.get(`${cohort}|0`) ?? 0;
    cohorts.push({ cohort_month: cohort, customers: size });
    if (size === 0) continue;
    const begun = Math.min(cohortOffsets - 1, monthsBetween(cohort, span.lastMonth));
    for (let offset = 0; offset <= begun; offset++) {
      const customers = cells.get(`${cohort}|${offset}`) ?? 0;
      out.push({ cohort_month: cohort, month_offset: offset, customers, retention_pct: percent(customers, size)! });
    }
  }
  return { from: span.from, to: span.to, cohorts, rows: out };
}
