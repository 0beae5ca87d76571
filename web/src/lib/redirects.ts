/**
 * Every redirect decision of the web app (spec §2 "Sign-in page behaviour", "Automatic redirect for
 * signed-in users", "Post-login redirect screen", "Protected wrapper"), as functions of plain data so
 * the rules can be tested exhaustively without a browser.
 */

import { hasAdminRights, isBusinessSubject, safeNextPath, type ResolvedSubject } from '@qw/contracts';

/**
 * What the rules need to know about the signed-in person: the session's user, with `org_member`
 * from /api/me once it has answered (the session itself does not say it; undefined: not known yet).
 */
export type RoleSubject = ResolvedSubject & { org_member?: boolean | null };

export const adminHome = '/admin';
export const businessHome = '/app/business/overview';
export const personalHome = '/app/personal/overview';
export const signInPath = '/login';

/**
 * A `next` value is honoured only when it is a path on this site (spec §2: it starts with '/'). The
 * rule and its refusals ('//host', '/\host', control characters, dot segments that climb to
 * '//host', over-long values) live in one function of the contracts, for the web and the servers alike.
 */
export { safeNextPath };

/**
 * Spec §2: admin to /admin, business to /app/business/overview, any other or missing role to
 * /app/personal/overview; spec §6: account type business or membership in any organization is
 * business.
 */
export function roleHome(subject: RoleSubject | null | undefined): string {
  // Identity decided admin with the one rule (contracts' resolveAccess); the page only reads it.
  if (hasAdminRights(subject)) return adminHome;
  if (isBusinessSubject(subject) || subject?.org_member === true) return businessHome;
  return personalHome;
}

/**
 * Whether the role's home still depends on organization membership that is not known yet: neither
 * admin nor a business account, and /api/me has not said `org_member`. A redirect to the role's
 * home waits for it (a member of an organization with a personal account type lands on business).
 */
export function awaitsMembership(subject: RoleSubject | null | undefined): boolean {
  if (hasAdminRights(subject) || isBusinessSubject(subject)) return false;
  return subject?.org_member === undefined || subject.org_member === null;
}

/** The session's user with /api/me's `org_member` once known (a failed /api/me counts as no membership). */
export function landingSubject(
  user: ResolvedSubject | null | undefined,
  me: { org_member: boolean } | null | undefined,
  meFailed = false,
): RoleSubject | null {
  if (!user) return null;
  if (me) return { ...user, org_member: me.org_member };
  return meFailed ? { ...user, org_member: false } : { ...user };
}

/** After sign-in, and for a signed-in person on a public route: `next` if it is a safe path, else the role's home. */
export function signedInDestination(next: string | null | undefined, subject: RoleSubject | null | undefined): string {
  return safeNextPath(next) ?? roleHome(subject);
}

/** Spec §2 "Automatic redirect for signed-in users": the routes a signed-in person is sent away from. */
export const autoRedirectPaths: readonly string[] = [
  '/',
  '/pricing',
  '/faq',
  '/contact',
  '/login',
  '/about',
  '/post-checkout',
  '/app',
  '/auth/callback',
];

function trimTrailingSlash(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

/**
 * Whether a signed-in person on this location is redirected. /auth/callback with a token or an
 * error is the callback page's own flow: it shows its result and redirects itself after 1.5 s.
 */
export function isAutoRedirectLocation(pathname: string, search = ''): boolean {
  const path = trimTrailingSlash(pathname);
  if (!autoRedirectPaths.includes(path)) return false;
  if (path === '/auth/callback') {
    const params = new URLSearchParams(search);
    if (params.has('token') || params.has('error')) return false;
  }
  return true;
}

/**
 * The destination of the automatic redirect, or null to stay. Without a safe `next`, it waits
 * (null) while the role's home depends on a membership not known yet.
 */
export function autoRedirectTarget(
  location: { pathname: string; search: string },
  subject: RoleSubject | null | undefined,
  signedIn: boolean,
  viewingSite = false,
): string | null {
  if (!signedIn || !isAutoRedirectLocation(location.pathname, location.search)) return null;
  if (viewingSite && viewSitePaths.includes(trimTrailingSlash(location.pathname))) return null;
  const next = safeNextPath(new URLSearchParams(location.search).get('next'));
  if (next) return next;
  return awaitsMembership(subject) ? null : roleHome(subject);
}

/**
 * The console's "View Site" link (spec §2 Admin area): it opens / with this flag, and the public
 * pages then stay put for the signed-in person instead of sending them back to their area.
 */
export const viewSitePath = '/?view=site';

/** The public pages a signed-in person may read after "View Site" (never /login, /app or the auth pages). */
export const viewSitePaths: readonly string[] = ['/', '/pricing', '/faq', '/about', '/contact'];

/** Areas: going back into one ends the "View Site" visit, so / redirects again afterwards. */
const areaPrefixes = ['/admin', '/app', '/dashboard', '/login'];

/**
 * Whether a signed-in person is reading the public site on purpose: this location asks for it
 * (`?view=site`), or an earlier one did (`viewing`) and they have not gone back into an area or
 * to sign-in since.
 */
export function viewingSiteAfter(location: { pathname: string; search: string }, viewing: boolean): boolean {
  if (new URLSearchParams(location.search).get('view') === 'site') return true;
  const path = trimTrailingSlash(location.pathname);
  if (areaPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return false;
  return viewing;
}

/** /login?next=<the path the visitor wanted>. */
export function signInRedirect(origin: { pathname: string; search?: string; hash?: string }): string {
  const path = `${origin.pathname}${origin.search ?? ''}${origin.hash ?? ''}`;
  return `${signInPath}?next=${encodeURIComponent(path)}`;
}

/**
 * Spec §2 "Protected wrapper": with no session, to /login remembering the origin; the exact path
 * /admin for a non-admin, to /app/personal/overview. null: show the page.
 */
export function protectedRedirect(
  origin: { pathname: string; search?: string; hash?: string },
  signedIn: boolean,
  subject: RoleSubject | null | undefined,
): string | null {
  if (!signedIn) return signInRedirect(origin);
  if (trimTrailingSlash(origin.pathname) === adminHome && !hasAdminRights(subject)) return personalHome;
  return null;
}

/**
 * Spec §2 admin guard: while the check is pending, render nothing (`pending`); with no session, a
 * non-admin or a failed check, replace to /app/personal/overview.
 */
export type AdminGuardInput = { signedIn: boolean; pending: boolean; failed: boolean; isAdmin: boolean };
export type AdminGuardDecision = { kind: 'pending' } | { kind: 'allow' } | { kind: 'redirect'; to: string };

export function adminGuardDecision(input: AdminGuardInput): AdminGuardDecision {
  if (!input.signedIn) return { kind: 'redirect', to: personalHome };
  if (input.pending) return { kind: 'pending' };
  if (input.failed || !input.isAdmin) return { kind: 'redirect', to: personalHome };
  return { kind: 'allow' };
}

/** Spec §2 "Post-login redirect screen": what it knows about the person. */
export type PostLoginFacts = {
  signedIn: boolean;
  email?: string | null;
  /** The admin email list, if the client has one; compared in lower case. */
  adminEmails?: readonly string[];
  /** /api/me is_admin: the server's reading of the admin_emails table. */
  isAdminListed?: boolean;
  accountType?: string | null;
  orgMember?: boolean;
};

/**
 * The six rules in order: no user → /login; admin list → /admin/overview; account_type admin →
 * /admin/overview; account_type business → /app/business/devices; member of any organization →
 * /app/business/devices; otherwise /app/personal/devices.
 */
export function postLoginDestination(facts: PostLoginFacts): string {
  if (!facts.signedIn) return signInPath;
  const email = facts.email?.trim().toLowerCase();
  const listed =
    facts.isAdminListed === true ||
    (!!email && (facts.adminEmails ?? []).some((entry) => entry.trim().toLowerCase() === email));
  if (listed) return '/admin/overview';
  if (facts.accountType === 'admin') return '/admin/overview';
  if (facts.accountType === 'business') return '/app/business/devices';
  if (facts.orgMember) return '/app/business/devices';
  return '/app/personal/devices';
}

/** Spec §4 post-checkout submit: where the buyer goes once the purchase is claimed. */
export function postCheckoutDestination(accountType: string | null | undefined): string {
  return accountType === 'business' ? '/app/business/devices' : '/app/personal/devices';
}

/** A same-site return path (the billing portal's `return`), else the fallback. */
export function safeReturnPath(value: string | null | undefined, fallback: string): string {
  return safeNextPath(value) ?? fallback;
}

/**
 * Spec §2/§6 (issue #12): a person with both a personal plan and an organization switches areas
 * with a link in each area's navigation. The business area links to the personal one when the
 * person has a personal plan; the personal area links to the business one when the person is a
 * business account or belongs to an organization. null: no link.
 */
export type AreaSwitchFacts = { orgMember: boolean; accountType?: string | null; hasPersonalPlan: boolean };

export function areaSwitchLink(
  area: 'personal' | 'business',
  facts: AreaSwitchFacts,
): { to: string; label: string } | null {
  if (area === 'business') return facts.hasPersonalPlan ? { to: personalHome, label: 'Personal area' } : null;
  return facts.orgMember || facts.accountType === 'business' ? { to: businessHome, label: 'Business area' } : null;
}

/** /invite?token=… as a `next` path: where sign-in and sign-up come back to, to accept. */
export function invitationPath(token: string): string {
  return `/invite?token=${encodeURIComponent(token)}`;
}

/** /login?next=/invite?token=… for a person invited with an address that has an account. */
export function invitationSignInPath(token: string): string {
  return `${signInPath}?next=${encodeURIComponent(invitationPath(token))}`;
}
