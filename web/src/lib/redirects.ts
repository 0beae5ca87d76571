/**
 * Every redirect decision of the web app (spec §2 "Sign-in page behaviour", "Automatic redirect for
 * signed-in users", "Post-login redirect screen", "Protected wrapper"), as functions of plain data so
 * the rules can be tested exhaustively without a browser.
 */

/** What the rules need to know about the signed-in person (the session's user or /api/me). */
export type RoleSubject = {
  account_type?: string | null;
  role?: string | null;
  is_admin?: boolean | null;
};

export const adminHome = '/admin';
export const businessHome = '/app/business/overview';
export const personalHome = '/app/personal/overview';
export const signInPath = '/login';

/** Spec §6: a platform admin is in the admin list (is_admin), or has role or account type admin. */
export function isAdminSubject(subject: RoleSubject | null | undefined): boolean {
  if (!subject) return false;
  return subject.is_admin === true || subject.role === 'admin' || subject.account_type === 'admin';
}

/** Spec §6: business is the account type business (a role named business counts too). */
export function isBusinessSubject(subject: RoleSubject | null | undefined): boolean {
  if (!subject) return false;
  return subject.account_type === 'business' || subject.role === 'business';
}

/**
 * A `next` value is honoured only when it is a path on this site: it starts with '/', but not with
 * '//' or '/\' (which browsers read as another host), and holds no control characters (which URL
 * parsing drops, turning '/\t/evil' into '//evil'). Absolute URLs never start with '/'.
 */
export function safeNextPath(next: string | null | undefined): string | null {
  if (typeof next !== 'string' || next === '') return null;
  if (!next.startsWith('/')) return null;
  if (next.startsWith('//') || next.startsWith('/\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(next)) return null;
  return next;
}

/** Spec §2: admin to /admin, business to /app/business/overview, any other or missing role to /app/personal/overview. */
export function roleHome(subject: RoleSubject | null | undefined): string {
  if (isAdminSubject(subject)) return adminHome;
  if (isBusinessSubject(subject)) return businessHome;
  return personalHome;
}

/** After sign-in, and for a signed-in person on a public route: `next` if it is a safe path, else the role's home. */
export function signedInDestination(next: string | null | undefined, subject: RoleSubject | null | undefined): string {
  return safeNextPath(next) ?? roleHome(subject);
}

/** Spec §2 "Automatic redirect for signed-in users": the routes a signed-in person is sent away from. */
export const autoRedirectPaths: readonly string[] = ['/', '/pricing', '/faq', '/contact', '/login', '/about', '/post-checkout', '/app', '/auth/callback'];

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

/** The destination of the automatic redirect, or null to stay. */
export function autoRedirectTarget(location: { pathname: string; search: string }, subject: RoleSubject | null | undefined, signedIn: boolean): string | null {
  if (!signedIn || !isAutoRedirectLocation(location.pathname, location.search)) return null;
  return signedInDestination(new URLSearchParams(location.search).get('next'), subject);
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
export function protectedRedirect(origin: { pathname: string; search?: string; hash?: string }, signedIn: boolean, subject: RoleSubject | null | undefined): string | null {
  if (!signedIn) return signInRedirect(origin);
  if (trimTrailingSlash(origin.pathname) === adminHome && !isAdminSubject(subject)) return personalHome;
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
  const listed = facts.isAdminListed === true || (!!email && (facts.adminEmails ?? []).some((entry) => entry.trim().toLowerCase() === email));
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
