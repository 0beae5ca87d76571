import { AppError, adminPageSizes } from '@qw/contracts';

/**
 * The console's rules as functions of data (unit-tested without a database): who may be taken off
 * the admin list, how a search becomes a LIKE pattern, and what page is asked for.
 */

/** A row of the admin list that grants the rights (spec §3 admin_emails: is_admin, or role admin). */
export type AdminListRow = {
  email: string;
  is_admin: boolean;
  role: string | null;
  source: 'environment' | 'operator';
};

export function grantsAdmin(row: Pick<AdminListRow, 'is_admin' | 'role'>): boolean {
  return row.is_admin || row.role === 'admin';
}

/**
 * Taking `email` off the list, asked by the admin whose address is `actorEmail`, with the list as it
 * is (locked) now. Refused, in this order: not on it (404); one's own address (409
 * `cannot_remove_self`); an address from ADMIN_EMAILS, which the configuration sets again at every
 * start (409 `conflict`); the last address that grants admin (409 `last_admin`).
 */
export function adminRemovalRefusal(list: readonly AdminListRow[], email: string, actorEmail: string): AppError | null {
  const granting = list.filter(grantsAdmin);
  const target = granting.find((row) => row.email === email);
  if (!target) return new AppError('not_found', 'That address is not on the admin list.');
  if (email === actorEmail.toLowerCase())
    return new AppError('cannot_remove_self', 'You cannot remove your own address from the admin list.');
  if (target.source === 'environment')
    return new AppError(
      'conflict',
      'This address comes from the ADMIN_EMAILS setting: take it out of the configuration instead.',
    );
  if (granting.length <= 1)
    return new AppError('last_admin', 'This is the last admin address: add another one before removing it.');
  return null;
}

/** A search as a case-insensitive LIKE pattern: the text anywhere, its own % and _ taken literally. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The page asked for, with the contract's defaults. */
export function pageOf(query: { page?: number | undefined; per_page?: number | undefined }): {
  page: number;
  perPage: number;
  offset: number;
} {
  const page = Math.max(1, Math.trunc(query.page ?? 1));
  const perPage = Math.min(
    adminPageSizes.max,
    Math.max(adminPageSizes.min, Math.trunc(query.per_page ?? adminPageSizes.default)),
  );
  return { page, perPage, offset: (page - 1) * perPage };
}

type Sort = 'asc' | 'desc';

/** The people list's order: newest first unless a column is chosen (e-mail or name, A to Z). */
export function userListOrder(query: { sort?: string | undefined; dir?: Sort | undefined }): {
  column: 'email' | 'full_name' | 'created_at';
  dir: Sort;
} {
  const dir = query.dir ?? (query.sort === 'created_at' || !query.sort ? 'desc' : 'asc');
  const column = query.sort === 'email' ? 'email' : query.sort === 'full_name' ? 'full_name' : 'created_at';
  return { column, dir };
}

/** The organizations list's order: newest first, by name A to Z, or by members most first. */
export function organizationListOrder(query: { sort?: string | undefined; dir?: Sort | undefined }): {
  column: 'name' | 'members' | 'created_at';
  dir: Sort;
} {
  const dir = query.dir ?? (query.sort === 'name' ? 'asc' : 'desc');
  const column = query.sort === 'name' ? 'name' : query.sort === 'members' ? 'members' : 'created_at';
  return { column, dir };
}
