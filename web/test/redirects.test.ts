import { describe, expect, it } from 'vitest';
import {
  adminGuardDecision,
  autoRedirectPaths,
  autoRedirectTarget,
  isAdminSubject,
  isAutoRedirectLocation,
  postCheckoutDestination,
  postLoginDestination,
  protectedRedirect,
  roleHome,
  safeNextPath,
  safeReturnPath,
  signedInDestination,
  signInRedirect,
} from '../src/lib/redirects';

const personal = { account_type: 'personal', role: 'client', is_admin: false };
const business = { account_type: 'business', role: 'client', is_admin: false };
const listedAdmin = { account_type: 'personal', role: 'client', is_admin: true };
const roleAdmin = { account_type: 'personal', role: 'admin', is_admin: false };
const typeAdmin = { account_type: 'admin', role: 'client', is_admin: false };

describe('safeNextPath: only paths on this site', () => {
  it.each([
    ['/app/personal/account', '/app/personal/account'],
    ['/app/personal/billing?x=1#top', '/app/personal/billing?x=1#top'],
    ['/', '/'],
  ])('honours %s', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    ['//evil.example'],
    ['//evil.example/path'],
    ['/\\evil.example'],
    ['/\\/evil.example'],
    ['https://evil.example'],
    ['http://evil.example/app'],
    ['javascript:alert(1)'],
    ['evil.example'],
    ['app/personal'],
    ['/\t/evil.example'],
    ['/\n/evil.example'],
    [''],
    [null],
    [undefined],
  ])('ignores %j', (next) => {
    expect(safeNextPath(next)).toBeNull();
  });
});

describe('roleHome (spec §2 sign-in page)', () => {
  it('sends admins to /admin: admin list, role admin or account type admin', () => {
    for (const subject of [listedAdmin, roleAdmin, typeAdmin]) expect(roleHome(subject)).toBe('/admin');
  });
  it('sends business accounts to /app/business/overview', () => {
    expect(roleHome(business)).toBe('/app/business/overview');
    expect(roleHome({ role: 'business' })).toBe('/app/business/overview');
  });
  it('sends any other or missing role to /app/personal/overview', () => {
    expect(roleHome(personal)).toBe('/app/personal/overview');
    expect(roleHome({ role: 'client' })).toBe('/app/personal/overview');
    expect(roleHome({})).toBe('/app/personal/overview');
    expect(roleHome(null)).toBe('/app/personal/overview');
    expect(roleHome({ account_type: 'enterprise', role: 'member' })).toBe('/app/personal/overview');
  });
  it('an admin who is also business goes to /admin', () => {
    expect(roleHome({ account_type: 'business', is_admin: true })).toBe('/admin');
  });
});

describe('signedInDestination', () => {
  it('honours a same-site next', () => {
    expect(signedInDestination('/app/personal/account', business)).toBe('/app/personal/account');
  });
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example'])('ignores %s and uses the role home', (next) => {
    expect(signedInDestination(next, personal)).toBe('/app/personal/overview');
    expect(signedInDestination(next, business)).toBe('/app/business/overview');
    expect(signedInDestination(next, listedAdmin)).toBe('/admin');
  });
  it('uses the role home without next', () => {
    expect(signedInDestination(null, typeAdmin)).toBe('/admin');
  });
});

describe('automatic redirect for signed-in users (spec §2)', () => {
  it('covers exactly the nine routes', () => {
    expect([...autoRedirectPaths].sort()).toEqual(['/', '/about', '/app', '/auth/callback', '/contact', '/faq', '/login', '/post-checkout', '/pricing']);
    for (const path of autoRedirectPaths) expect(isAutoRedirectLocation(path)).toBe(true);
    expect(isAutoRedirectLocation('/pricing/')).toBe(true);
  });
  it('leaves other routes alone', () => {
    for (const path of ['/app/personal/overview', '/dashboard', '/admin', '/forgot-password', '/reset-password', '/post-login', '/test-checkout/cs_1', '/billing/test-portal', '/nope']) {
      expect(isAutoRedirectLocation(path)).toBe(false);
    }
  });
  it('lets the callback page finish its own flow when the link carries a token or an error', () => {
    expect(isAutoRedirectLocation('/auth/callback', '?token=abc&type=signup')).toBe(false);
    expect(isAutoRedirectLocation('/auth/callback', '?error=access_denied')).toBe(false);
    expect(isAutoRedirectLocation('/auth/callback', '')).toBe(true);
  });
  it('goes to next, else the role home; only when signed in', () => {
    expect(autoRedirectTarget({ pathname: '/', search: '' }, personal, true)).toBe('/app/personal/overview');
    expect(autoRedirectTarget({ pathname: '/pricing', search: '' }, business, true)).toBe('/app/business/overview');
    expect(autoRedirectTarget({ pathname: '/login', search: '?next=%2Fapp%2Fpersonal%2Fbilling' }, personal, true)).toBe('/app/personal/billing');
    expect(autoRedirectTarget({ pathname: '/login', search: '?next=//evil.example' }, listedAdmin, true)).toBe('/admin');
    expect(autoRedirectTarget({ pathname: '/login', search: '?next=https://evil.example' }, personal, true)).toBe('/app/personal/overview');
    expect(autoRedirectTarget({ pathname: '/', search: '' }, personal, false)).toBeNull();
    expect(autoRedirectTarget({ pathname: '/app/personal/account', search: '' }, personal, true)).toBeNull();
  });
});

describe('protected wrapper (spec §2)', () => {
  it('sends a visitor without a session to /login, remembering the origin', () => {
    expect(protectedRedirect({ pathname: '/app/personal/account' }, false, null)).toBe('/login?next=%2Fapp%2Fpersonal%2Faccount');
    expect(signInRedirect({ pathname: '/app/personal/billing', search: '?a=1', hash: '#x' })).toBe('/login?next=%2Fapp%2Fpersonal%2Fbilling%3Fa%3D1%23x');
  });
  it('sends a non-admin on exactly /admin to /app/personal/overview', () => {
    expect(protectedRedirect({ pathname: '/admin' }, true, personal)).toBe('/app/personal/overview');
    expect(protectedRedirect({ pathname: '/admin/' }, true, business)).toBe('/app/personal/overview');
    // Deeper admin paths are the admin guard's business.
    expect(protectedRedirect({ pathname: '/admin/overview' }, true, personal)).toBeNull();
  });
  it('lets admins and other pages through', () => {
    expect(protectedRedirect({ pathname: '/admin' }, true, listedAdmin)).toBeNull();
    expect(protectedRedirect({ pathname: '/app/personal/overview' }, true, personal)).toBeNull();
  });
});

describe('admin guard (spec §2)', () => {
  it('renders nothing while pending', () => {
    expect(adminGuardDecision({ signedIn: true, pending: true, failed: false, isAdmin: false })).toEqual({ kind: 'pending' });
  });
  it('redirects with no session, a non-admin or a failed check', () => {
    const away = { kind: 'redirect', to: '/app/personal/overview' };
    expect(adminGuardDecision({ signedIn: false, pending: false, failed: false, isAdmin: false })).toEqual(away);
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: false, isAdmin: false })).toEqual(away);
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: true, isAdmin: true })).toEqual(away);
  });
  it('allows an admin', () => {
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: false, isAdmin: true })).toEqual({ kind: 'allow' });
  });
  it('isAdminSubject reads the admin list, the role and the account type', () => {
    expect([listedAdmin, roleAdmin, typeAdmin].map(isAdminSubject)).toEqual([true, true, true]);
    expect([personal, business, null].map(isAdminSubject)).toEqual([false, false, false]);
  });
});

describe('post-login screen: the six rules in order (spec §2)', () => {
  it('1. no signed-in user → /login', () => {
    expect(postLoginDestination({ signedIn: false, isAdminListed: true, accountType: 'admin' })).toBe('/login');
  });
  it('2. email in the admin list → /admin/overview', () => {
    expect(postLoginDestination({ signedIn: true, email: 'ops@quietwire.test', isAdminListed: true, accountType: 'business', orgMember: true })).toBe('/admin/overview');
    expect(postLoginDestination({ signedIn: true, email: 'Ops@Quietwire.test', adminEmails: ['ops@quietwire.test'], accountType: 'personal' })).toBe('/admin/overview');
  });
  it('3. account_type admin → /admin/overview', () => {
    expect(postLoginDestination({ signedIn: true, email: 'a@example.com', accountType: 'admin', orgMember: true })).toBe('/admin/overview');
  });
  it('4. account_type business → /app/business/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'business', orgMember: false })).toBe('/app/business/devices');
  });
  it('5. member of any organization → /app/business/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'personal', orgMember: true })).toBe('/app/business/devices');
  });
  it('6. otherwise → /app/personal/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'personal', orgMember: false })).toBe('/app/personal/devices');
    expect(postLoginDestination({ signedIn: true })).toBe('/app/personal/devices');
    expect(postLoginDestination({ signedIn: true, email: 'x@example.com', adminEmails: ['ops@quietwire.test'] })).toBe('/app/personal/devices');
  });
});

describe('other destinations', () => {
  it('post-checkout: business → business devices, else personal devices', () => {
    expect(postCheckoutDestination('business')).toBe('/app/business/devices');
    expect(postCheckoutDestination('personal')).toBe('/app/personal/devices');
    expect(postCheckoutDestination(undefined)).toBe('/app/personal/devices');
  });
  it('the billing portal returns only to same-site paths', () => {
    expect(safeReturnPath('/app/business/billing', '/app/personal/billing')).toBe('/app/business/billing');
    expect(safeReturnPath('//evil.example', '/app/personal/billing')).toBe('/app/personal/billing');
    expect(safeReturnPath('https://evil.example', '/app/personal/billing')).toBe('/app/personal/billing');
    expect(safeReturnPath(null, '/app/personal/billing')).toBe('/app/personal/billing');
  });
});
