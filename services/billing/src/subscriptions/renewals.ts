import { addMonths } from '../clock.ts';

export type Period = { start: Date; end: Date };

/**
 * What a test-provider subscription owes at `now`: one monthly period for every month that ended
 * since `periodEnd` (a clock advanced by 62 days bills two), or, when it was set to cancel at the
 * end of its period, no renewal and the moment it ended.
 */
export function dueRenewals(
  sub: { periodEnd: Date | null; cancelAtPeriodEnd: boolean },
  now: Date,
): { periods: Period[]; endedAt: Date | null } {
  if (!sub.periodEnd || sub.periodEnd > now) return { periods: [], endedAt: null };
  if (sub.cancelAtPeriodEnd) return { periods: [], endedAt: sub.periodEnd };
  const periods: Period[] = [];
  for (let start = sub.periodEnd; start <= now; start = addMonths(start))
    periods.push({ start, end: addMonths(start) });
  return { periods, endedAt: null };
}
