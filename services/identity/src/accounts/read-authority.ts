import type { Kysely } from 'kysely';
import { resolveAccess, type Access, type Authority } from '@qw/contracts';
import type { IdentityDatabase } from '../database.ts';
import { membershipsOf } from '../organizations/organizations.repository.ts';
import { findAuthorityFacts } from './accounts.repository.ts';

const gone: Authority = {
  active: false,
  is_admin: false,
  email_verified: false,
  account_type: null,
  organizations: [],
};

type AuthorityFacts = NonNullable<Awaited<ReturnType<typeof findAuthorityFacts>>>;

/**
 * A person's rights now by the one rule (`resolveAccess`), with the facts they were decided from
 * (read in one query); undefined when the account is gone. Sessions, the operator console and the
 * gateway's caller assertion all read rights through here.
 */
export async function readAccess(
  db: Kysely<IdentityDatabase>,
  userId: string,
  options: { twoFactorPassed: boolean; sessionId?: string | undefined },
): Promise<{ facts: AuthorityFacts; access: Access } | undefined> {
  const facts = await findAuthorityFacts(db, userId, options.sessionId);
  if (!facts) return undefined;
  const access = resolveAccess({
    profileRole: facts.role,
    accountType: facts.account_type,
    adminEntry: facts.list_is_admin === null ? null : { is_admin: facts.list_is_admin, role: facts.list_role ?? null },
    emailVerified: facts.email_verified_at !== null,
    twoFactorEnabled: facts.two_factor === true,
    twoFactorPassed: options.twoFactorPassed,
  });
  return { facts, access };
}

/**
 * A person's rights now (none once the account is gone or the asked-about session has ended), for
 * the gateway's caller assertion. The second factor counts as passed: only the session's access
 * token knows whether it was, and the gateway grants admin only where that token's admin claim
 * (which required it) agrees.
 */
export async function readAuthority(
  db: Kysely<IdentityDatabase>,
  userId: string,
  sessionId?: string,
): Promise<Authority> {
  const [read, organizations] = await Promise.all([
    readAccess(db, userId, { twoFactorPassed: true, sessionId }),
    membershipsOf(db, userId),
  ]);
  if (!read?.facts.session_alive) return gone;
  return {
    active: true,
    is_admin: read.access.isAdmin,
    email_verified: read.facts.email_verified_at !== null,
    account_type: read.facts.account_type,
    organizations,
  };
}
