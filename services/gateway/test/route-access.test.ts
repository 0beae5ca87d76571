import { describe, expect, it } from 'vitest';
import { AppError, anonymousCaller, type Caller, type RouteAccess } from '@qw/contracts';
import { accessRefusal, openApiSecurity, type Requester } from '../src/http/route-access.ts';

const person: Caller = { userId: 'u-1', accountType: 'personal', isAdmin: false, emailVerified: true };
const admin: Caller = { ...person, isAdmin: true };
const unavailable = new AppError('unavailable', 'The console is unavailable for a moment. Try again.');

/** Every kind of requester the gate meets. */
const requesters: Record<string, Requester> = {
  anonymous: { caller: anonymousCaller },
  person: { caller: person },
  admin: { caller: admin },
  'admin, address unverified': { caller: { ...admin, emailVerified: false } },
  'admin, identity silent': { caller: person, authorityUnknown: unavailable },
  'anonymous, identity silent': { caller: anonymousCaller, authorityUnknown: unavailable },
};

/** The answer each requester gets, by access: the code of the refusal, or `pass`. */
const expected: Record<RouteAccess, Record<string, string>> = {
  public: {
    anonymous: 'pass',
    person: 'pass',
    admin: 'pass',
    'admin, address unverified': 'pass',
    'admin, identity silent': 'pass',
    'anonymous, identity silent': 'pass',
  },
  webhook: {
    anonymous: 'pass',
    person: 'pass',
    admin: 'pass',
    'admin, address unverified': 'pass',
    'admin, identity silent': 'pass',
    'anonymous, identity silent': 'pass',
  },
  'signed-in-or-link': {
    anonymous: 'pass',
    person: 'pass',
    admin: 'pass',
    'admin, address unverified': 'pass',
    'admin, identity silent': 'pass',
    'anonymous, identity silent': 'pass',
  },
  'signed-in': {
    anonymous: 'not_signed_in',
    person: 'pass',
    admin: 'pass',
    'admin, address unverified': 'pass',
    'admin, identity silent': 'pass',
    'anonymous, identity silent': 'not_signed_in',
  },
  admin: {
    anonymous: 'not_signed_in',
    person: 'forbidden',
    admin: 'pass',
    'admin, address unverified': 'forbidden',
    'admin, identity silent': 'unavailable',
    'anonymous, identity silent': 'not_signed_in',
  },
};

describe('accessRefusal', () => {
  for (const access of Object.keys(expected) as RouteAccess[]) {
    it(`${access}: each requester passes or is refused with the right code`, () => {
      const seen = Object.fromEntries(
        Object.entries(requesters).map(([name, requester]) => [name, accessRefusal(access, requester)?.code ?? 'pass']),
      );
      expect(seen).toEqual(expected[access]);
    });
  }

  it('refuses in the words the services use', () => {
    expect(accessRefusal('signed-in', { caller: anonymousCaller })?.message).toBe('Not signed in');
    expect(accessRefusal('admin', { caller: person })?.message).toBe('This is for platform administrators only.');
  });
});

describe('openApiSecurity', () => {
  it('states no requirement for public routes and a bearer token (or a link) for the others', () => {
    expect(openApiSecurity('public')).toEqual([]);
    expect(openApiSecurity('webhook')).toEqual([]);
    expect(openApiSecurity('signed-in')).toEqual([{ bearer: [] }]);
    expect(openApiSecurity('admin')).toEqual([{ bearer: [] }]);
    expect(openApiSecurity('signed-in-or-link')).toEqual([{ bearer: [] }, { configLink: [] }]);
  });
});
