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
