import { entitlingStatuses } from '../billing/billing.rpc.ts';
import { findPlan } from '../plans.ts';

/**
 * The windows and spans of the Analytics page (spec §7 and §9). A window of N days is the N
 * calendar days (UTC) that end with the day asked about, that day included.
 */
export const revenueWindows = [1, 7, 30, 60, 90, 182, 365, 730] as const;
export const newSubscriptionWindows = [1, 7, 30, 60] as const;
export const cancelWindows = [7, 30] as const;
export const arpuWindows = [30] as const;

/** Daily series: the charts show 60 days; revenue_daily keeps 730 (spec §3 revenue_daily_last_730). */
export const dailyChartDays = 60;
export const longestDailySeries = 730;
/** Monthly series: the charts show the last 12 months; cohorts run from +0 to +11. */
export const monthlyChartMonths = 12;
export const longestMonthlySeries = 24;
export const cohortOffsets = 12;

/** Human names of the windows the pickers offer (spec §9: 90 is the Quarter, 182 the 6 months). */
export function windowLabel(days: number): string {
  if (days === 1) return 'Today';
  if (days === 90) return 'Quarter';
  if (days === 182) return '6 months';
  if (days === 365) return '12 months';
  if (days === 730) return '24 months';
  return `${days} days`;
}

/** A subscription's price counts toward MRR in the states that entitle its owner: paid up, or a card being retried. */
export function countsTowardMrr(status: string): boolean {
  return (entitlingStatuses as readonly string[]).includes(status);
}

/**
 * A subscription's price per month in cents: the price its event states, else the catalog's
 * price of its plan (checkout quantity is always 1), else 0 for a plan we do not sell.
 */
export function monthlyPriceCents(planCode: string, stated?: number | null): number {
  if (typeof stated === 'number') return stated;
  return findPlan(planCode)?.priceCents ?? 0;
}

/**
 * The kinds of MRR movement, judged on each customer's MRR (a person's personal plans, or an
 * organization's plans) when it changes:
 * - new: from 0 to more, for a customer never paying before;
 * - reactivation: from 0 to more, for a customer who paid before and stopped;
 * - expansion / contraction: up or down while staying above 0;
 * - churn: from more than 0 to 0.
 */
export const mrrMovementKinds = ['new', 'expansion', 'contraction', 'churn', 'reactivation'] as const;
export type MrrMovementKind = (typeof mrrMovementKinds)[number];

export function mrrMovement(
  before: number,
  after: number,
  paidBefore: boolean,
): { kind: MrrMovementKind; cents: number } | null {
  if (after === before) return null;
  if (before === 0) return { kind: paidBefore ? 'reactivation' : 'new', cents: after };
  if (after === 0) return { kind: 'churn', cents: before };
  return after > before ? { kind: 'expansion', cents: after - before } : { kind: 'contraction', cents: before - after };
}

/** The pages of the public site whose visits the funnel counts (path only, nothing about the visitor). */
export const countedPagePaths = ['/', '/pricing', '/faq', '/about', '/contact', '/support'] as const;
export type CountedPagePath = (typeof countedPagePaths)[number];

export function isCountedPagePath(path: unknown): path is CountedPagePath {
  return typeof path === 'string' && (countedPagePaths as readonly string[]).includes(path);
}

/** The funnel's note while web_traffic_daily has no rows (spec §2, Admin Analytics). */
export const funnelVisitsNote = 'Visits will show once rows are inserted into the web traffic table.';

/** Day and month keys in UTC: `2026-11-23`, and the first day of a month `2026-11-01`. */
export function utcDay(at: Date | string): string {
  return new Date(at).toISOString().slice(0, 10);
}

export function utcMonth(at: Date | string): string {
  return `${new Date(at).toISOString().slice(0, 7)}-01`;
}

/** The day `days` before (or after, if negative) a `YYYY-MM-DD` day. */
export function shiftDay(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
}

/** The first day of the month `months` before (negative: after) the month of a `YYYY-MM-DD` day. */
export function shiftMonth(day: string, months: number): string {
  const date = new Date(`${day.slice(0, 7)}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.toISOString().slice(0, 10);
}

/** Whole months from the month of `from` to the month of `to` (`2026-01-31` → `2026-02-01` is 1). */
export function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm);
}
