import type { Kysely } from 'kysely';
import { resolveAccess, type Authority } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { findAuthorityFacts } from './accounts.repository.ts';

const gone: Authority = { active: false, is_admin: false, email_verified: false, account_type: null };

/**
 * A person's rights now (none once the account is gone or the asked-about session has ended), by the one rule (`resolveAccess`), for the gateway's caller assertion.
 * The second factor counts as passed: only the session's access token knows whether it was, and
 * the gateway grants admin only where that token's admin claim (which required it) agrees.
 */
export async function readAuthority(
  db: Kysely<IdentityDatabase>,
  userId: string,
  sessionId?: string,
): Promise<Authority> {
  const facts = await findAuthorityFacts(db, userId, sessionId);
  if (!facts?.session_alive) return gone;
  const emailVerified = facts.email_verified_at !== null;
  const access = resolveAccess({
    profileRole: facts.role,
    accountType: facts.account_type,
    adminEntry: facts.list_is_admin === null ? null : { is_admin: facts.list_is_admin, role: facts.list_role ?? null },
    emailVerified,
    twoFactorEnabled: facts.two_factor === true,
    twoFactorPassed: true,
  });
  return { active: true, is_admin: access.isAdmin, email_verified: emailVerified, account_type: facts.account_type };
}
