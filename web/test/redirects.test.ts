import { describe, expect, it } from 'vitest';
import {
  adminGuardDecision,
  areaSwitchLink,
  autoRedirectPaths,
  awaitsMembership,
  invitationPath,
  invitationSignInPath,
  landingSubject,
  autoRedirectTarget,
  isAutoRedirectLocation,
  postCheckoutDestination,
  postLoginDestination,
  protectedRedirect,
  roleHome,
  safeNextPath,
  safeReturnPath,
  signedInDestination,
  signInRedirect,
  viewingSiteAfter,
  viewSitePath,
  viewSitePaths,
} from '../src/lib/redirects';

const personal = { account_type: 'personal', role: 'client', is_admin: false };
const business = { account_type: 'business', role: 'client', is_admin: false };
// Identity resolves admin (contracts' resolveAccess); these are its possible answers.
const listedAdmin = { account_type: 'personal', role: 'admin', is_admin: true };
const typeAdmin = { account_type: 'admin', role: 'client', is_admin: true };
// Named admin but withheld (unverified address, or a session without the second factor).
const withheldAdmin = { account_type: 'admin', role: 'client', is_admin: false };
// /api/me has answered: not a member of any organization.
const personalKnown = { ...personal, org_member: false };

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
  it('sends admins to /admin: whoever identity says is_admin', () => {
    for (const subject of [listedAdmin, typeAdmin]) expect(roleHome(subject)).toBe('/admin');
  });
  it('never grants admin from the role or account type identity withheld it from', () => {
    expect(roleHome(withheldAdmin)).toBe('/app/personal/overview');
    expect(roleHome({ role: 'admin', is_admin: false })).toBe('/app/personal/overview');
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
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example'])(
    'ignores %s and uses the role home',
    (next) => {
      expect(signedInDestination(next, personal)).toBe('/app/personal/overview');
      expect(signedInDestination(next, business)).toBe('/app/business/overview');
      expect(signedInDestination(next, listedAdmin)).toBe('/admin');
    },
  );
  it('uses the role home without next', () => {
    expect(signedInDestination(null, typeAdmin)).toBe('/admin');
  });
});

describe('automatic redirect for signed-in users (spec §2)', () => {
  it('covers exactly the nine routes', () => {
    expect([...autoRedirectPaths].sort()).toEqual([
      '/',
      '/about',
      '/app',
      '/auth/callback',
      '/contact',
      '/faq',
      '/login',
      '/post-checkout',
      '/pricing',
    ]);
    for (const path of autoRedirectPaths) expect(isAutoRedirectLocation(path)).toBe(true);
    expect(isAutoRedirectLocation('/pricing/')).toBe(true);
  });
  it('leaves other routes alone', () => {
    for (const path of [
      '/app/personal/overview',
      '/dashboard',
      '/admin',
      '/forgot-password',
      '/reset-password',
      '/post-login',
      '/test-checkout/cs_1',
      '/billing/test-portal',
      '/nope',
    ]) {
      expect(isAutoRedirectLocation(path)).toBe(false);
    }
  });
  it('lets the callback page finish its own flow when the link carries a token or an error', () => {
    expect(isAutoRedirectLocation('/auth/callback', '?token=abc&type=signup')).toBe(false);
    expect(isAutoRedirectLocation('/auth/callback', '?error=access_denied')).toBe(false);
    expect(isAutoRedirectLocation('/auth/callback', '')).toBe(true);
  });
  it('goes to next, else the role home; only when signed in', () => {
    expect(autoRedirectTarget({ pathname: '/', search: '' }, personalKnown, true)).toBe('/app/personal/overview');
    expect(autoRedirectTarget({ pathname: '/pricing', search: '' }, business, true)).toBe('/app/business/overview');
    expect(
      autoRedirectTarget({ pathname: '/login', search: '?next=%2Fapp%2Fpersonal%2Fbilling' }, personal, true),
    ).toBe('/app/personal/billing');
    expect(autoRedirectTarget({ pathname: '/login', search: '?next=//evil.example' }, listedAdmin, true)).toBe(
      '/admin',
    );
    expect(autoRedirectTarget({ pathname: '/login', search: '?next=https://evil.example' }, personalKnown, true)).toBe(
      '/app/personal/overview',
    );
    expect(autoRedirectTarget({ pathname: '/', search: '' }, personal, false)).toBeNull();
    expect(autoRedirectTarget({ pathname: '/app/personal/account', search: '' }, personal, true)).toBeNull();
  });
});

describe('protected wrapper (spec §2)', () => {
  it('sends a visitor without a session to /login, remembering the origin', () => {
    expect(protectedRedirect({ pathname: '/app/personal/account' }, false, null)).toBe(
      '/login?next=%2Fapp%2Fpersonal%2Faccount',
    );
    expect(signInRedirect({ pathname: '/app/personal/billing', search: '?a=1', hash: '#x' })).toBe(
      '/login?next=%2Fapp%2Fpersonal%2Fbilling%3Fa%3D1%23x',
    );
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
    expect(adminGuardDecision({ signedIn: true, pending: true, failed: false, isAdmin: false })).toEqual({
      kind: 'pending',
    });
  });
  it('redirects with no session, a non-admin or a failed check', () => {
    const away = { kind: 'redirect', to: '/app/personal/overview' };
    expect(adminGuardDecision({ signedIn: false, pending: false, failed: false, isAdmin: false })).toEqual(away);
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: false, isAdmin: false })).toEqual(away);
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: true, isAdmin: true })).toEqual(away);
  });
  it('allows an admin', () => {
    expect(adminGuardDecision({ signedIn: true, pending: false, failed: false, isAdmin: true })).toEqual({
      kind: 'allow',
    });
  });
  it('the exact path /admin is refused to a person identity withheld admin from', () => {
    expect(protectedRedirect({ pathname: '/admin' }, true, withheldAdmin)).toBe('/app/personal/overview');
  });
});

describe('post-login screen: the six rules in order (spec §2)', () => {
  it('1. no signed-in user → /login', () => {
    expect(postLoginDestination({ signedIn: false, isAdminListed: true, accountType: 'admin' })).toBe('/login');
  });
  it('2. email in the admin list → /admin/overview', () => {
    expect(
      postLoginDestination({
        signedIn: true,
        email: 'ops@quietwire.test',
        isAdminListed: true,
        accountType: 'business',
        orgMember: true,
      }),
    ).toBe('/admin/overview');
    expect(
      postLoginDestination({
        signedIn: true,
        email: 'Ops@Quietwire.test',
        adminEmails: ['ops@quietwire.test'],
        accountType: 'personal',
      }),
    ).toBe('/admin/overview');
  });
  it('3. account_type admin → /admin/overview', () => {
    expect(
      postLoginDestination({ signedIn: true, email: 'a@example.com', accountType: 'admin', orgMember: true }),
    ).toBe('/admin/overview');
  });
  it('4. account_type business → /app/business/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'business', orgMember: false })).toBe(
      '/app/business/devices',
    );
  });
  it('5. member of any organization → /app/business/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'personal', orgMember: true })).toBe(
      '/app/business/devices',
    );
  });
  it('6. otherwise → /app/personal/devices', () => {
    expect(postLoginDestination({ signedIn: true, accountType: 'personal', orgMember: false })).toBe(
      '/app/personal/devices',
    );
    expect(postLoginDestination({ signedIn: true })).toBe('/app/personal/devices');
    expect(postLoginDestination({ signedIn: true, email: 'x@example.com', adminEmails: ['ops@quietwire.test'] })).toBe(
      '/app/personal/devices',
    );
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

describe('landing of organization members (spec §6: membership in any organization is business)', () => {
  const member = { ...personal, org_member: true };

  it('a member of an organization with a personal account type goes to the business area', () => {
    expect(roleHome(member)).toBe('/app/business/overview');
    expect(signedInDestination(null, member)).toBe('/app/business/overview');
    expect(autoRedirectTarget({ pathname: '/login', search: '' }, member, true)).toBe('/app/business/overview');
  });
  it('admins stay admins, business accounts stay business, whatever the membership', () => {
    expect(roleHome({ ...listedAdmin, org_member: true })).toBe('/admin');
    expect(roleHome({ ...business, org_member: false })).toBe('/app/business/overview');
  });
  it('the redirect waits for /api/me only when the home depends on it', () => {
    expect(awaitsMembership(personal)).toBe(true);
    expect(awaitsMembership({ ...personal, org_member: null })).toBe(true);
    expect(awaitsMembership(personalKnown)).toBe(false);
    expect(awaitsMembership(member)).toBe(false);
    expect(awaitsMembership(business)).toBe(false);
    expect(awaitsMembership(listedAdmin)).toBe(false);
    expect(autoRedirectTarget({ pathname: '/', search: '' }, personal, true)).toBeNull();
    expect(autoRedirectTarget({ pathname: '/', search: '' }, business, true)).toBe('/app/business/overview');
    // A safe next does not depend on the membership.
    expect(
      autoRedirectTarget({ pathname: '/login', search: '?next=%2Fapp%2Fpersonal%2Fbilling' }, personal, true),
    ).toBe('/app/personal/billing');
  });
  it('landingSubject adds /api/me’s org_member; a failed /api/me counts as no membership', () => {
    expect(landingSubject(null, { org_member: true })).toBeNull();
    expect(landingSubject(personal, { org_member: true })).toEqual(member);
    expect(landingSubject(personal, null)).toEqual(personal);
    expect(landingSubject(personal, null, true)).toEqual(personalKnown);
    expect(awaitsMembership(landingSubject(personal, null, true))).toBe(false);
  });
});

describe('switching between the personal and business areas', () => {
  it('the business area links to the personal one only with a personal plan', () => {
    expect(areaSwitchLink('business', { orgMember: true, hasPersonalPlan: true })).toEqual({
      to: '/app/personal/overview',
      label: 'Personal area',
    });
    expect(areaSwitchLink('business', { orgMember: true, hasPersonalPlan: false })).toBeNull();
  });
  it('the personal area links to the business one for members and business accounts', () => {
    const link = { to: '/app/business/overview', label: 'Business area' };
    expect(areaSwitchLink('personal', { orgMember: true, hasPersonalPlan: true })).toEqual(link);
    expect(areaSwitchLink('personal', { orgMember: false, accountType: 'business', hasPersonalPlan: true })).toEqual(
      link,
    );
    expect(areaSwitchLink('personal', { orgMember: false, accountType: 'personal', hasPersonalPlan: true })).toBeNull();
  });
});

describe('invitation links come back to /invite after sign-in', () => {
  it('keeps the token and is a safe next path', () => {
    const token = 'abc_DEF-123~xyz.456789';
    expect(invitationPath(token)).toBe('/invite?token=abc_DEF-123~xyz.456789');
    expect(safeNextPath(invitationPath(token))).toBe(invitationPath(token));
    const signIn = invitationSignInPath('a&b=c/d');
    expect(signIn).toBe('/login?next=%2Finvite%3Ftoken%3Da%2526b%253Dc%252Fd');
    const next = new URLSearchParams(signIn.split('?')[1]).get('next');
    expect(next).toBe('/invite?token=a%26b%3Dc%2Fd');
    expect(new URLSearchParams(next?.split('?')[1]).get('token')).toBe('a&b=c/d');
    expect(signedInDestination(next, personalKnown)).toBe(next);
  });
});

describe("the admin console's View Site (spec §2 Admin area)", () => {
  const at = (path: string) => {
    const url = new URL(path, 'https://quietwire.test');
    return { pathname: url.pathname, search: url.search };
  };

  it('opens / with the flag, and the public pages then stay put for the signed-in admin', () => {
    expect(viewSitePath).toBe('/?view=site');
    expect(viewingSiteAfter(at(viewSitePath), false)).toBe(true);
    expect(
      autoRedirectTarget(at(viewSitePath), listedAdmin, true, viewingSiteAfter(at(viewSitePath), false)),
    ).toBeNull();
    for (const path of viewSitePaths) {
      expect(viewingSiteAfter(at(path), true)).toBe(true);
      expect(autoRedirectTarget(at(path), listedAdmin, true, true)).toBeNull();
      if (path !== '/') expect(autoRedirectTarget(at(`${path}/`), typeAdmin, true, true)).toBeNull();
    }
  });

  it('never holds back the redirect from sign-in, post-checkout, /app or the callback', () => {
    for (const path of ['/login', '/post-checkout', '/app', '/auth/callback'])
      expect(autoRedirectTarget(at(path), listedAdmin, true, true)).toBe('/admin');
  });

  it('ends when the person goes back into an area or to sign-in', () => {
    for (const path of ['/admin', '/admin/devices', '/app/personal/overview', '/dashboard', '/login'])
      expect(viewingSiteAfter(at(path), true)).toBe(false);
    expect(viewingSiteAfter(at('/'), false)).toBe(false);
    // Without the visit, / sends the admin home as before.
    expect(autoRedirectTarget(at('/'), listedAdmin, true, false)).toBe('/admin');
    expect(autoRedirectTarget(at('/?view=other'), listedAdmin, true, viewingSiteAfter(at('/?view=other'), false))).toBe(
      '/admin',
    );
  });
});
