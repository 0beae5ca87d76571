import { monthLabel } from '../format';

/** 'Last 60 days', and once the figures are here their exact span: 'Last 60 days (2026-09-25 to 2026-11-23)'. */
export function spanText(data: { from: string; to: string } | undefined, label: string): string {
  return data ? `${label} (${data.from} to ${data.to})` : label;
}

/** The same for monthly series: 'Last 12 months (2025-12 to 2026-11)'. */
export function monthSpanText(data: { from: string; to: string } | undefined, label: string): string {
  return data ? `${label} (${monthLabel(data.from)} to ${monthLabel(data.to)})` : label;
}
