import type { AdminAuditEntry, AuditCursor } from '@qw/contracts';

/** `{at}_{id}`: the query string's form of a cursor (the route's pattern has checked its shape). */
export function parseAuditCursor(text: string): AuditCursor {
  const split = text.indexOf('_');
  return { at: text.slice(0, split), id: text.slice(split + 1).toLowerCase() };
}

export function auditCursorText(entry: Pick<AdminAuditEntry, 'at' | 'id'>): string {
  return `${entry.at}_${entry.id}`;
}

/**
 * Newer first: by time to the millisecond (ISO strings of the same form compare as times), then
 * by id, as both sources order their rows.
 */
function newerFirst(a: AdminAuditEntry, b: AdminAuditEntry): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * One page of the operators' audit from its two sources (identity's accounts changes and
 * provisioning's fleet actions), each already cut to the same cursor and page size and sorted the
 * same way: the newest `perPage` of both, and the cursor of the page after it, if any remains.
 */
export function mergeAuditPages(
  sources: { rows: AdminAuditEntry[]; total: number }[],
  perPage: number,
): { rows: AdminAuditEntry[]; total: number; per_page: number; next: string | null } {
  const merged = sources.flatMap((source) => source.rows).sort(newerFirst);
  const rows = merged.slice(0, perPage);
  const last = rows.at(-1);
  // Older entries remain when a row fetched was not used, or a source filled its page (it may hold more).
  const more = merged.length > rows.length || sources.some((source) => source.rows.length === perPage);
  return {
    rows,
    total: sources.reduce((sum, source) => sum + source.total, 0),
    per_page: perPage,
    next: last !== undefined && more ? auditCursorText(last) : null,
  };
}
