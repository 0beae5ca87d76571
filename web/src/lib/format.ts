import { formatUsd } from '@qw/contracts';

/** YYYY-MM-DD (DESIGN.md), read in UTC so every viewer sees the same day the server recorded. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return date.toISOString().slice(0, 10);
}

/** 'start – end' as two YYYY-MM-DD dates (the invoice Period column). */
export function formatPeriod(start: string | null | undefined, end: string | null | undefined): string {
  return `${formatDate(start)} – ${formatDate(end)}`;
}

/** An amount in cents as the plan catalog writes dollars ($9.99); another currency as '12.50 eur'. */
export function formatAmount(cents: number, currency: string): string {
  return currency.toUpperCase() === 'USD' ? formatUsd(cents) : `${(cents / 100).toFixed(2)} ${currency}`;
}

/** 'YYYY-MM-DD HH:MM UTC' (the audit log): the day as formatDate, with the time the server recorded. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
