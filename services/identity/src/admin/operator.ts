import type { Kysely } from 'kysely';
import { AppError, requireAdmin, type Caller } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { readAccess } from '../accounts/read-authority.ts';

/** The acting admin, as the database says now. */
export type Operator = { id: string; email: string };

/**
 * The caller's admin rights, from the assertion and then the database (inside `db`'s transaction if
 * any): an address taken off the admin list loses the console at once, whatever its token says.
 */
export async function requireOperator(db: Kysely<IdentityDatabase>, caller: Caller): Promise<Operator> {
  const userId = requireAdmin(caller);
  // The access token said admin, which it says only after the second factor when that is on.
  const read = await readAccess(db, userId, { twoFactorPassed: true });
  if (!read?.access.isAdmin) throw new AppError('forbidden', 'This is for platform administrators only.');
  return { id: userId, email: read.facts.email };
}
