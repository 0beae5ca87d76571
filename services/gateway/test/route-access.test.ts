import { describe, expect, it } from 'vitest';
import {
  AppError,
  accessName,
  anonymousCaller,
  organizationManagerActions,
  organizationManagers,
  organizationMembers,
  type Caller,
  type RouteAccess,
} from '@qw/contracts';
import { accessRefusal, openApiSecurity, organizationIdOf, type Requester } from '../src/http/route-access.ts';

const person: Caller = { userId: 'u-1', accountType: 'personal', isAdmin: false, emailVerified: true };
const admin: Caller = { ...person, isAdmin: true };
const unavailable = new AppError('unavailable', 'The console is unavailable for a moment. Try again.');
const org = '0b9c6a2e-4f1d-4c5e-9a7b-2d3e4f5a6b7c';
const otherOrg = '7f6e5d4c-3b2a-4190-8877-665544332211';
const inOrg = { params: { id: org } };

/** Every kind of requester the gate meets. */
const requesters: Record<string, Requester> = {
  anonymous: { caller: anonymousCaller, ...inOrg },
  person: { caller: person, organizations: new Map(), ...inOrg },
  admin: { caller: admin, organizations: new Map(), ...inOrg },
  'admin, address unverified': { caller: { ...admin, emailVerified: false }, organizations: new Map(), ...inOrg },
  'admin, identity silent': { caller: person, authorityUnknown: unavailable, ...inOrg },
  'anonymous, identity silent': { caller: anonymousCaller, authorityUnknown: unavailable, ...inOrg },
  'org member': { caller: person, organizations: new Map([[org, 'member']]), ...inOrg },
  'org admin': { caller: person, organizations: new Map([[org, 'admin']]), ...inOrg },
  // The id as a person may type it: the same organization.
  'org owner, id in capitals': {
    caller: person,
    organizations: new Map([[org, 'owner']]),
    params: { id: org.toUpperCase() },
  },
  'owner of another organization': { caller: admin, organizations: new Map([[otherOrg, 'owner']]), ...inOrg },
  'org owner, malformed id': { caller: person, organizations: new Map([[org, 'owner']]), params: { id: `${org}x` } },
};

/** The requesters every non-organization route answers alike, by whether they are signed in. */
const everyone = (answer: string) => Object.fromEntries(Object.keys(requesters).map((name) => [name, answer]));
const signedInAnswer = (signedOut: string, signedIn: string) =>
  Object.fromEntries(
    Object.keys(requesters).map((name) => [name, name.startsWith('anonymous') ? signedOut : signedIn]),
  );

/** The answer each requester gets, by access: the code of the refusal, or `pass`. */
const expected: Array<[RouteAccess, Record<string, string>]> = [
  ['public', everyone('pass')],
  ['webhook', everyone('pass')],
  ['signed-in-or-link', everyone('pass')],
  ['signed-in', signedInAnswer('not_signed_in', 'pass')],
  [
    'admin',
    {
      ...signedInAnswer('not_signed_in', 'forbidden'),
      admin: 'pass',
      'admin, identity silent': 'unavailable',
      'owner of another organization': 'pass',
    },
  ],
  [
    organizationMembers,
    {
      ...signedInAnswer('not_signed_in', 'not_found'),
      // Identity silent: the service that owns the organization decides.
      'admin, identity silent': 'pass',
      'org member': 'pass',
      'org admin': 'pass',
      'org owner, id in capitals': 'pass',
    },
  ],
  [
    organizationManagers(organizationManagerActions.invite),
    {
      ...signedInAnswer('not_signed_in', 'not_found'),
      'admin, identity silent': 'pass',
      'org member': 'forbidden',
      'org admin': 'pass',
      'org owner, id in capitals': 'pass',
    },
  ],
];

describe('accessRefusal', () => {
  for (const [access, answers] of expected) {
    it(`${accessName(access)}: each requester passes or is refused with the right code`, () => {
      const seen = Object.fromEntries(
        Object.entries(requesters).map(([name, requester]) => [name, accessRefusal(access, requester)?.code ?? 'pass']),
      );
      expect(seen).toEqual(answers);
    });
  }

  it('refuses in the words the services use', () => {
    expect(accessRefusal('signed-in', { caller: anonymousCaller })?.message).toBe('Not signed in');
    expect(accessRefusal('admin', { caller: person })?.message).toBe('This is for platform administrators only.');
    expect(accessRefusal(organizationMembers, requesters.person!)?.message).toBe('Organization not found.');
    expect(
      accessRefusal(organizationManagers(organizationManagerActions.readAuditLog), requesters['org member']!)?.message,
    ).toBe('Only owners and admins can read the audit log.');
  });
});

describe('organizationIdOf', () => {
  it('reads an id in any case as identity keeps it, and a malformed one as no organization of anyone', () => {
    expect(organizationIdOf(org.toUpperCase())).toBe(org);
    expect(() => organizationIdOf('../admin')).toThrowError('Organization not found.');
  });
});

describe('openApiSecurity', () => {
  it('states no requirement for public routes and a bearer token (or a link) for the others', () => {
    expect(openApiSecurity('public')).toEqual([]);
    expect(openApiSecurity('webhook')).toEqual([]);
    expect(openApiSecurity('signed-in')).toEqual([{ bearer: [] }]);
    expect(openApiSecurity('admin')).toEqual([{ bearer: [] }]);
    expect(openApiSecurity(organizationMembers)).toEqual([{ bearer: [] }]);
    expect(openApiSecurity('signed-in-or-link')).toEqual([{ bearer: [] }, { configLink: [] }]);
  });
});
