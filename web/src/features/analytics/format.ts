import { isApiError } from '../../lib/api-client';

/**
 * How the Analytics page writes its figures (DESIGN.md "Charts"): money is kept in cents and shown
 * in USD with two decimals and thousands separators, dates as YYYY-MM-DD, months as YYYY-MM.
 */
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const count = new Intl.NumberFormat('en-US');

/** 123456 → '$1,234.56'; -1200 → '-$12.00' (spec §9: the amount divided by 100). */
export function formatCents(cents: number): string {
  return usd.format(cents / 100);
}

export function formatCount(value: number): string {
  return count.format(value);
}

/** 12.345 → '12.3%'; null (nothing to divide by) → '—'. */
export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${value.toFixed(1)}%`;
}

/** '2026-11-01' → '2026-11'. */
export function monthLabel(monthStart: string): string {
  return monthStart.slice(0, 7);
}

/** An instant as 'YYYY-MM-DD HH:MM UTC'; '—' when there is none or it cannot be read. */
export function formatInstant(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * What a panel says when its figures did not load: the server's own message whenever it sent one
 * (the gateway keeps 5xx messages free of details), the client's connection message when no
 * answer came, and a plain fallback for an answer without the error shape.
 */
export function analyticsFailureText(error: unknown): string {
  if (isApiError(error) && (error.isNetworkError || !/^http_\d+$/.test(error.code)) && error.message)
    return error.message;
  const status = isApiError(error) && error.status > 0 ? ` (HTTP ${error.status})` : '';
  return `The figures could not be loaded${status}.`;
}
