import { describe, expect, it } from 'vitest';
import { hasAdminRights, isBusinessSubject, resolveAccess, type AccessFacts } from '@qw/contracts';

const person: AccessFacts = {
  profileRole: null,
  accountType: 'personal',
  adminEntry: undefined,
  emailVerified: true,
  twoFactorEnabled: false,
  twoFactorPassed: false,
};
const listed = { is_admin: true, role: 'admin' };

describe('resolveAccess: spec §4 role, §6 admin, only for a proved address and a trusted session', () => {
  it('a person nobody named admin is a client', () => {
    expect(resolveAccess(person)).toEqual({ role: 'client', isAdmin: false });
  });

  it.each([
    ['the admin list (is_admin)', { adminEntry: { is_admin: true, role: null } }, 'admin'],
    ['the admin list (role admin)', { adminEntry: { is_admin: false, role: 'admin' } }, 'admin'],
  ] as const)('names an admin through %s', (_how, facts, role) => {
    expect(resolveAccess({ ...person, ...facts })).toEqual({ role, isAdmin: true });
  });

  it.each([
    ['a profile role', { profileRole: 'admin' }],
    ['an account type', { accountType: 'admin' }],
    ['both', { profileRole: 'admin', accountType: 'admin' }],
  ] as const)('the admin list is the one source: %s of admin alone names nobody', (_how, facts) => {
    expect(resolveAccess({ ...person, ...facts })).toEqual({ role: 'client', isAdmin: false });
  });

  it('an admin-list row that is neither is_admin nor role admin names nobody', () => {
    expect(resolveAccess({ ...person, adminEntry: { is_admin: false, role: 'viewer' } })).toEqual({
      role: 'client',
      isAdmin: false,
    });
  });

  it('the profile role wins over the admin list for the role, not for the rights', () => {
    expect(resolveAccess({ ...person, profileRole: 'support', adminEntry: listed })).toEqual({
      role: 'support',
      isAdmin: true,
    });
  });

  it('no name grants anything before the address is verified', () => {
    for (const facts of [{ adminEntry: listed }, { adminEntry: listed, profileRole: 'admin' }])
      expect(resolveAccess({ ...person, ...facts, emailVerified: false })).toEqual({ role: 'client', isAdmin: false });
  });

  it('with two-factor sign-in on, only a session that passed it holds the rights', () => {
    const admin = { ...person, adminEntry: listed, twoFactorEnabled: true };
    expect(resolveAccess({ ...admin, twoFactorPassed: false })).toEqual({ role: 'client', isAdmin: false });
    expect(resolveAccess({ ...admin, twoFactorPassed: true })).toEqual({ role: 'admin', isAdmin: true });
    // With it off, passing it is not asked for.
    expect(resolveAccess({ ...admin, twoFactorEnabled: false })).toEqual({ role: 'admin', isAdmin: true });
  });

  it('every combination: admin exactly when on the list, verified, and past the second factor when it is on', () => {
    const names: Array<Partial<AccessFacts>> = [
      {},
      { adminEntry: listed },
      { profileRole: 'admin' },
      { accountType: 'admin' },
    ];
    for (const named of names)
      for (const emailVerified of [false, true])
        for (const twoFactorEnabled of [false, true])
          for (const twoFactorPassed of [false, true]) {
            const facts = { ...person, ...named, emailVerified, twoFactorEnabled, twoFactorPassed };
            const expected = 'adminEntry' in named && emailVerified && (!twoFactorEnabled || twoFactorPassed);
            const access = resolveAccess(facts);
            expect(access.isAdmin, JSON.stringify(facts)).toBe(expected);
            // An admin role is never shown without the rights.
            if (access.role === 'admin') expect(access.isAdmin).toBe(true);
          }
  });
});

describe('reading the answer on the client', () => {
  it('only is_admin says admin: role and account type were already weighed', () => {
    expect(hasAdminRights({ is_admin: true })).toBe(true);
    expect(hasAdminRights({ is_admin: false, role: 'admin', account_type: 'admin' })).toBe(false);
    expect(hasAdminRights(null)).toBe(false);
  });

  it('business is the account type business, or a role named business', () => {
    expect(isBusinessSubject({ account_type: 'business' })).toBe(true);
    expect(isBusinessSubject({ role: 'business' })).toBe(true);
    expect(isBusinessSubject({ account_type: 'personal', role: 'client' })).toBe(false);
    expect(isBusinessSubject(undefined)).toBe(false);
  });
});
