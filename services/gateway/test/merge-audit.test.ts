import { describe, expect, it } from 'vitest';
import type { AdminAuditEntry } from '@qw/contracts';
import { auditCursorText, mergeAuditPages, parseAuditCursor } from '../src/admin/merge-audit.ts';

/** The merged audit's rule as data: two sources' pages in, the newest page and its cursor out. */
const entry = (at: string, id: string, kind = 'x'): AdminAuditEntry => ({
  id,
  at,
  actor_id: '00000000-0000-4000-8000-000000000000',
  actor_email: 'ops@quietwire.test',
  kind,
  target: 't',
  details: {},
});
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const t = (second: number) => `2026-11-23T17:00:${String(second).padStart(2, '0')}.000Z`;

describe('mergeAuditPages', () => {
  it('keeps the newest per_page of both, ties in the same millisecond by id, and says where to go on', () => {
    const accounts = { rows: [entry(t(9), id(9)), entry(t(5), id(5)), entry(t(1), id(1))], total: 3 };
    const fleet = { rows: [entry(t(7), id(7)), entry(t(5), id(6)), entry(t(2), id(2))], total: 3 };
    const page = mergeAuditPages([accounts, fleet], 3);
    expect(page.rows.map((row) => row.id)).toEqual([id(9), id(7), id(6)]);
    expect(page.total).toBe(6);
    expect(page.next).toBe(`${t(5)}_${id(6)}`);
    expect(parseAuditCursor(page.next!)).toEqual({ at: t(5), id: id(6) });
  });

  it('has no next page once both sources gave less than a page and everything fitted', () => {
    const page = mergeAuditPages(
      [
        { rows: [entry(t(3), id(3))], total: 5 },
        { rows: [], total: 0 },
      ],
      10,
    );
    expect(page).toMatchObject({ total: 5, per_page: 10, next: null });
    expect(
      mergeAuditPages(
        [
          { rows: [], total: 0 },
          { rows: [], total: 0 },
        ],
        10,
      ),
    ).toEqual({
      rows: [],
      total: 0,
      per_page: 10,
      next: null,
    });
  });

  it('offers a next page when a source filled its page, even if every row fitted', () => {
    const full = { rows: [entry(t(4), id(4)), entry(t(3), id(3))], total: 9 };
    expect(mergeAuditPages([full, { rows: [], total: 0 }], 2).next).toBe(auditCursorText(entry(t(3), id(3))));
  });
});
