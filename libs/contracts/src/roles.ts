/**
 * Who is a platform admin, and which role a person has: the one rule, used by identity to decide
 * and by the web to read what identity decided. Spec §4 (role resolution) and §6 (platform admin),
 * tightened because the admin list names addresses, not people: a name on it proves nothing until
 * the address is verified, and once two-factor sign-in is on, a session that skipped it is not
 * trusted with the console.
 */

/** The default role (spec §9), treated as personal. */
export const defaultRole = 'client';

/** A row of the admin list (spec §3 admin_emails). */
export type AdminListEntry = { is_admin: boolean; role: string | null };

export type AccessFacts = {
  /** profiles.role; null when unset. */
  profileRole: string | null | undefined;
  /** profiles.account_type. */
  accountType: string | null | undefined;
  /** The admin-list row for the person's address, if any. */
  adminEntry: AdminListEntry | null | undefined;
  /** The person proved the address (a verification or reset link, then a password of their own). */
  emailVerified: boolean;
  /** Two-factor sign-in is on for the account. */
  twoFactorEnabled: boolean;
  /** This session was completed with the second factor. */
  twoFactorPassed: boolean;
};

export type Access = { role: string; isAdmin: boolean };

function listedAsAdmin(entry: AdminListEntry | null | undefined): boolean {
  return entry != null && (entry.is_admin || entry.role === 'admin');
}

/**
 * Spec §6 names an admin three ways (the admin list, role admin, account type admin); here the
 * admin list alone does (issue #13: operators manage it in the console, and taking an address off
 * it must take the rights away, which a profile role or account type set elsewhere would not). It
 * grants the rights only with a verified address and, when two-factor sign-in is on, a session
 * that passed it. Spec §4's role: the profile role, else admin from the admin list, else client;
 * an admin role without the rights reads as the default, so no screen treats it as admin.
 */
export function resolveAccess(facts: AccessFacts): Access {
  const listed = listedAsAdmin(facts.adminEntry);
  // The admin list is the one source: a profile role or account type of admin names nobody.
  const named = listed;
  const proven = facts.emailVerified && (!facts.twoFactorEnabled || facts.twoFactorPassed);
  const isAdmin = named && proven;
  const role = facts.profileRole || (listed ? 'admin' : defaultRole);
  return { role: role === 'admin' && !isAdmin ? defaultRole : role, isAdmin };
}

/** What a client knows about a person: identity's answer (a session's user or /api/me). */
export type ResolvedSubject = {
  is_admin?: boolean | null;
  account_type?: string | null;
  role?: string | null;
};

/**
 * Reading `resolveAccess`'s answer: only `is_admin` says admin. Role and account type were already
 * weighed there; reading them again would grant what the server withheld (an unverified address,
 * a session without the second factor).
 */
export function hasAdminRights(subject: ResolvedSubject | null | undefined): boolean {
  return subject?.is_admin === true;
}

/** Spec §6: business is the account type business (a role named business counts too). */
export function isBusinessSubject(subject: ResolvedSubject | null | undefined): boolean {
  if (!subject) return false;
  return subject.account_type === 'business' || subject.role === 'business';
}
