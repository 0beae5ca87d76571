import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generateKeyPair } from '@qw/wireguard';
import { accessName, analyticsRoutes, httpRoutes, isOrganizationAccess } from '@qw/contracts';
import { analyticsService } from '@qw/analytics';
import { inboxOwnerOf } from '@qw/platform';
import { authorityMaxAgeMs } from '../src/auth/authority-cache.ts';
import { Client, confirmEmail, signUp, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { joinOrganization, organizationEventsHandled, ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * Every route of the gateway × every kind of caller, each allowed or refused as intended, and
 * refusals change nothing. The routes come from the gateway's own table (libs/contracts http):
 * a route without a row here fails the test, so every new route states who may call it.
 */
type Principal =
  | 'anonymous'
  | 'personal'
  | 'other'
  | 'orgMember'
  | 'orgAdmin'
  | 'orgOwner'
  | 'admin'
  | 'configLink'
  | 'removedAdmin';
/**
 * `removedAdmin`: a platform admin whose address an operator took off the admin list a second ago,
 * still holding the access token that said admin, fifteen minutes from expiring (issue #20:
 * authority changes count within a second, whatever the token's remaining life). The removal ended
 * their sessions, and the token with them: on every route they get what a token that is no session
 * gets (see `withRemovedAdmin`).
 */
const principals: Principal[] = [
  'anonymous',
  'personal',
  'other',
  'orgMember',
  'orgAdmin',
  'orgOwner',
  'admin',
  'configLink',
  'removedAdmin',
];

/**
 * - allow: the request passed the gates and reached the route's work, whatever its business
 *   answer (a 201, or "no such checkout"): never 401 not_signed_in/invalid_token, 403 or 5xx;
 * - same: a public route: exactly what anonymous gets;
 * - signin: 401 not_signed_in; token: 401 invalid_token (a token that is no session);
 * - hidden: 404 not_found, the answer for someone else's resource;
 * - ok: allowed and done (a 2xx), where the caller's own thing exists to be done;
 * - no_entitlement: signed in, but the account has no plan for this (a business rule, not a gate);
 * - forbidden: 403 forbidden, signed in but not allowed: a member of the organization asking what
 *   only its owners and admins may, or anyone but a platform admin in the admin console;
 * - held: 403 suspended_by_higher_level, a device switched off at a level above the caller's;
 * - off: 409 conflict, past every gate: a suspended device's configuration is not given out.
 */
type Outcome =
  | 'allow'
  | 'ok'
  | 'same'
  | 'signin'
  | 'token'
  | 'hidden'
  | 'no_entitlement'
  | 'forbidden'
  | 'held'
  | 'off';

/** `withoutSession`: sent without the refresh cookie (signing out with it would end the principal's session, and every later row's token with it). */
type Request = { url: string; body?: unknown; withoutSession?: true };
type Row = { request: (p: Principal) => Promise<Request> | Request; expect: Record<Principal, Outcome> };

const all = (outcome: Outcome) => Object.fromEntries(principals.map((p) => [p, outcome])) as Record<Principal, Outcome>;
/** The removed admin's token is no session any more: refused as the config link's token is, wherever that is. */
const withRemovedAdmin = (expected: Record<Principal, Outcome>): Record<Principal, Outcome> => ({
  ...expected,
  removedAdmin: expected.configLink,
});
/** A public route: everybody gets what anonymous gets; a config link sent as a bearer token is refused as a token. */
const anyone = (): Record<Principal, Outcome> => ({ ...all('same'), configLink: 'token' });
/** A signed-in route about the caller's own things. */
const signedIn = (): Record<Principal, Outcome> => ({ ...all('allow'), anonymous: 'signin', configLink: 'token' });
/** Something nobody signed in finds (404), and anyone else is asked to sign in or refused as a token. */
const nobody = (): Record<Principal, Outcome> => ({ ...all('hidden'), anonymous: 'signin', configLink: 'token' });
/** A route about personal's device or plan: that person alone; to anyone else it does not exist. */
const devicePerson = (): Record<Principal, Outcome> => ({ ...nobody(), personal: 'allow' });

/** An organization's business: its owner, admin and member; to anyone else it does not exist (404). */
const orgMembers = (): Record<Principal, Outcome> => ({
  ...nobody(),
  orgMember: 'allow',
  orgAdmin: 'allow',
  orgOwner: 'allow',
});
/** Its owners and admins only: its member is refused with 403. */
const orgManagers = (): Record<Principal, Outcome> => ({ ...orgMembers(), orgMember: 'forbidden' });
/** The organization's devices: its people, each answered with a 2xx (their own devices, or all of them). */
const orgDevicePeople = (): Record<Principal, Outcome> => ({
  ...orgMembers(),
  orgMember: 'ok',
  orgAdmin: 'ok',
  orgOwner: 'ok',
});

/** The admin console's routes: a platform admin; any other person is refused with 403. */
const adminOnly = (): Record<Principal, Outcome> => ({
  ...all('forbidden'),
  admin: 'ok',
  anonymous: 'signin',
  configLink: 'token',
});

/** Every read of the Analytics page, and the rebuild. */
function analyticsRows(): Record<string, Row> {
  const rows: Record<string, Row> = {};
  for (const route of analyticsRoutes) {
    if (route.access !== 'admin') continue;
    const query = route.url.endsWith('window') || route.url.endsWith('/arpu') ? '?days=30' : '';
    rows[`${route.method} ${route.url}`] = { request: () => ({ url: `${route.url}${query}` }), expect: adminOnly() };
  }
  return rows;
}

let stack: Stack;
const clients = {} as Record<Principal, Client>;
let deviceOf: () => Promise<string>;
let sharedDevice: string;
let subscriptionId: string;
let orgId: string;
let orgSubscriptionId: string;
let orgInvoiceId: string;
/** A member whose role callers try to change, one who must survive every refused removal, and an open invitation. */
let roleTarget: string;
let survivor: string;
let survivorInvitation: string;
/** A second organization the principals join only to leave it. */
let leaveOrg: string;
let leaveOrgOwner: Client;
let spareMember: () => Promise<string>;
const orgPeople: Principal[] = ['orgMember', 'orgAdmin', 'orgOwner'];
const managers: Principal[] = ['orgAdmin', 'orgOwner'];
const emails: Partial<Record<Principal, string>> = {
  orgOwner: 'owen@example.com',
  orgAdmin: 'ada@example.com',
  orgMember: 'max@example.com',
};

const fresh = () => `matrix-${randomUUID().slice(0, 8)}@example.com`;

const matrix: Record<string, Row> = {
  'POST /api/auth/signup': {
    request: () => ({ url: '/api/auth/signup', body: { email: fresh(), password: 'correct horse battery' } }),
    expect: anyone(),
  },
  'POST /api/auth/login': {
    request: () => ({ url: '/api/auth/login', body: { email: fresh(), password: 'correct horse battery' } }),
    expect: anyone(),
  },
  'POST /api/auth/mfa': {
    request: () => ({ url: '/api/auth/mfa', body: { mfa_token: 'x'.repeat(40), code: '123456' } }),
    expect: anyone(),
  },
  // The refresh cookie is the credential here: whoever holds one gets a session; without one, 204
  // (nobody signed in is no error).
  'POST /api/auth/refresh': {
    request: () => ({ url: '/api/auth/refresh' }),
    // The removed admin's sessions ended with their removal: their cookie is no session any more.
    expect: { ...all('allow'), anonymous: 'ok', configLink: 'token' },
  },
  // With the cookie, signing out ends the session and its access tokens (authority-freshness.test.ts).
  'POST /api/auth/logout': { request: () => ({ url: '/api/auth/logout', withoutSession: true }), expect: anyone() },
  'POST /api/auth/verify': {
    request: () => ({ url: '/api/auth/verify', body: { token: 'x'.repeat(43) } }),
    expect: anyone(),
  },
  'POST /api/auth/password/set': {
    request: () => ({
      url: '/api/auth/password/set',
      body: { token: 'x'.repeat(43), password: 'a long new password' },
    }),
    expect: anyone(),
  },
  'POST /api/auth/resend-verification': {
    request: () => ({ url: '/api/auth/resend-verification' }),
    expect: signedIn(),
  },
  'POST /api/auth/password/forgot': {
    request: () => ({ url: '/api/auth/password/forgot', body: { email: fresh() } }),
    expect: anyone(),
  },
  'POST /api/auth/password/reset': {
    request: () => ({
      url: '/api/auth/password/reset',
      body: { token: 'x'.repeat(43), password: 'a long new password' },
    }),
    expect: anyone(),
  },
  'GET /api/me': { request: () => ({ url: '/api/me' }), expect: signedIn() },
  'GET /api/orgs': { request: () => ({ url: '/api/orgs' }), expect: signedIn() },
  'PATCH /api/me/profile': {
    request: () => ({ url: '/api/me/profile', body: { full_name: 'Matrix' } }),
    expect: signedIn(),
  },
  'POST /api/me/mfa/enrol': { request: () => ({ url: '/api/me/mfa/enrol' }), expect: signedIn() },
  'POST /api/me/mfa/confirm': {
    request: () => ({ url: '/api/me/mfa/confirm', body: { code: '000000' } }),
    expect: signedIn(),
  },
  'POST /api/me/mfa/disable': {
    request: () => ({ url: '/api/me/mfa/disable', body: { code: '000000' } }),
    expect: signedIn(),
  },
  'GET /api/me/export': { request: () => ({ url: '/api/me/export' }), expect: signedIn() },
  // A wrong password: the route's work answers 400, and nothing is deleted.
  'POST /api/me/delete': {
    request: () => ({ url: '/api/me/delete', body: { password: 'not the password of anyone' } }),
    expect: signedIn(),
  },
  'GET /api/devices': { request: () => ({ url: '/api/devices' }), expect: signedIn() },
  'GET /api/overview': { request: () => ({ url: '/api/overview' }), expect: signedIn() },
  'POST /api/devices': {
    request: () => ({ url: '/api/devices', body: { name: 'Matrix', platform: 'linux' } }),
    // Personal devices come with a personal plan: business people and the operator have none.
    expect: {
      ...signedIn(),
      orgMember: 'no_entitlement',
      orgAdmin: 'no_entitlement',
      orgOwner: 'no_entitlement',
      admin: 'no_entitlement',
    },
  },
  'PATCH /api/devices/:id': {
    request: (p) => ({ url: `/api/devices/${sharedDevice}`, body: { name: `Renamed by ${p}` } }),
    expect: devicePerson(),
  },
  'DELETE /api/devices/:id': {
    request: async () => ({ url: `/api/devices/${await deviceOf()}` }),
    expect: devicePerson(),
  },
  'POST /api/devices/:id/key': {
    request: async () => ({ url: `/api/devices/${await deviceOf()}/key`, body: {} }),
    expect: devicePerson(),
  },
  'PATCH /api/devices/:id/key-rotation': {
    request: () => ({ url: `/api/devices/${sharedDevice}/key-rotation`, body: { every_days: 90 } }),
    expect: devicePerson(),
  },
  // Automatic without a country fits any server: the choice is kept and nothing moves.
  'POST /api/devices/:id/region': {
    request: () => ({ url: `/api/devices/${sharedDevice}/region`, body: { region: 'auto' } }),
    expect: devicePerson(),
  },
  'PATCH /api/devices/:id/privacy': {
    request: () => ({ url: `/api/devices/${sharedDevice}/privacy`, body: { blocking: ['ads'] } }),
    expect: devicePerson(),
  },
  'GET /api/devices/:id/peer-info': {
    request: () => ({ url: `/api/devices/${sharedDevice}/peer-info` }),
    expect: devicePerson(),
  },
  'POST /api/devices/:id/config-link': {
    request: () => ({ url: `/api/devices/${sharedDevice}/config-link` }),
    expect: devicePerson(),
  },
  'GET /api/device/:id/config': {
    request: () => ({ url: `/api/device/${sharedDevice}/config` }),
    expect: devicePerson(),
  },
  'POST /api/checkout': {
    request: () => ({ url: '/api/checkout', body: { plan_code: 'personal', quantity: 1 } }),
    expect: anyone(),
  },
  'GET /api/checkout/verify': {
    request: () => ({ url: '/api/checkout/verify?session_id=cs_unknown' }),
    expect: anyone(),
  },
  'POST /api/checkout/claim': {
    request: () => ({ url: '/api/checkout/claim', body: { session_id: 'cs_unknown', email: fresh() } }),
    expect: signedIn(),
  },
  'GET /api/billing': { request: () => ({ url: '/api/billing' }), expect: signedIn() },
  'GET /api/billing/manage': { request: () => ({ url: '/api/billing/manage' }), expect: signedIn() },
  'POST /api/billing/webhook': { request: () => ({ url: '/api/billing/webhook', body: '{}' }), expect: anyone() },
  'GET /api/billing/test-checkout/:id': {
    request: () => ({ url: '/api/billing/test-checkout/cs_unknown' }),
    expect: anyone(),
  },
  'POST /api/billing/test-checkout/:id/pay': {
    request: () => ({
      url: '/api/billing/test-checkout/cs_unknown/pay',
      body: { email: fresh(), card_number: '4242424242424242' },
    }),
    expect: anyone(),
  },
  'POST /api/billing/test-portal/cancel': {
    request: () => ({ url: '/api/billing/test-portal/cancel', body: { subscription_id: subscriptionId } }),
    expect: devicePerson(),
  },
  'POST /api/billing/test-portal/card': {
    request: () => ({
      url: '/api/billing/test-portal/card',
      body: { subscription_id: subscriptionId, card_number: '4242 4242 4242 4242' },
    }),
    expect: devicePerson(),
  },
  'POST /api/contact': {
    request: () => ({ url: '/api/contact', body: { email: fresh(), message: 'Hello' } }),
    expect: anyone(),
  },
  'GET /api/health': { request: () => ({ url: '/api/health' }), expect: anyone() },
  'GET /api/servers': { request: () => ({ url: '/api/servers' }), expect: anyone() },
  'GET /api/connection-check': { request: () => ({ url: '/api/connection-check' }), expect: anyone() },
  // An organization's plan: its owners change it; its admins and members may not; to anyone else it does not exist.
  'POST /api/billing/change-plan': {
    request: () => ({
      url: '/api/billing/change-plan',
      body: { subscription_id: orgSubscriptionId, plan_code: 'business50' },
    }),
    expect: {
      ...all('hidden'),
      orgOwner: 'ok',
      orgAdmin: 'forbidden',
      orgMember: 'forbidden',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  // What a change of an organization's plan would do: as the change itself, its owners only.
  'GET /api/billing/change-plan/preview': {
    request: () => ({
      url: `/api/billing/change-plan/preview?subscription_id=${orgSubscriptionId}&plan_code=business50`,
    }),
    expect: {
      ...all('hidden'),
      orgOwner: 'ok',
      orgAdmin: 'forbidden',
      orgMember: 'forbidden',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  // An organization's billing details (issue #26): its owners and admins read them, its owners set them.
  'GET /api/billing/details': {
    request: () => ({ url: `/api/billing/details?org_id=${orgId}` }),
    expect: {
      ...all('hidden'),
      orgOwner: 'ok',
      orgAdmin: 'ok',
      orgMember: 'forbidden',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  'POST /api/billing/details': {
    request: () => ({
      url: `/api/billing/details?org_id=${orgId}`,
      body: { company_name: 'Matrix Ltd', address: '1 Test Street', vat_id: 'DE123456789' },
    }),
    expect: {
      ...all('hidden'),
      orgOwner: 'ok',
      orgAdmin: 'forbidden',
      orgMember: 'forbidden',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  // An organization's receipt: its owners and admins; to its member and anyone else it does not exist.
  'GET /api/billing/invoices/:id': {
    request: () => ({ url: `/api/billing/invoices/${orgInvoiceId}` }),
    expect: {
      ...all('hidden'),
      orgOwner: 'ok',
      orgAdmin: 'ok',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  // Resuming an organization's plan (not set to end, so the owner hears 409): its owners only.
  'POST /api/billing/resume': {
    request: () => ({ url: '/api/billing/resume', body: { subscription_id: orgSubscriptionId } }),
    expect: {
      ...all('hidden'),
      orgOwner: 'allow',
      orgAdmin: 'forbidden',
      orgMember: 'forbidden',
      anonymous: 'signin',
      configLink: 'token',
    },
  },
  // A checkout as the signed-in person (one who has the plan already hears 409).
  'POST /api/billing/checkout': {
    request: () => ({ url: '/api/billing/checkout', body: { plan_code: 'personal' } }),
    expect: signedIn(),
  },
  ...analyticsRows(),
  'POST /api/visits': { request: () => ({ url: '/api/visits', body: { path: '/pricing' } }), expect: anyone() },
  // An organization's devices: its people; to anyone else it does not exist.
  'GET /api/orgs/:id/overview': {
    request: () => ({ url: `/api/orgs/${orgId}/overview` }),
    expect: orgDevicePeople(),
  },
  'GET /api/orgs/:id/devices': { request: () => ({ url: `/api/orgs/${orgId}/devices` }), expect: orgDevicePeople() },
  'POST /api/orgs/:id/devices': {
    request: (p) => ({ url: `/api/orgs/${orgId}/devices`, body: { name: `Matrix ${p}` } }),
    expect: orgDevicePeople(),
  },
  // The organization itself, its people and invitations (identity).
  'GET /api/orgs/:id': { request: () => ({ url: `/api/orgs/${orgId}` }), expect: orgMembers() },
  'PATCH /api/orgs/:id': {
    request: (p) => ({ url: `/api/orgs/${orgId}`, body: { name: `Renamed by ${p}` } }),
    expect: orgManagers(),
  },
  'GET /api/orgs/:id/users': { request: () => ({ url: `/api/orgs/${orgId}/users` }), expect: orgManagers() },
  'PATCH /api/orgs/:id/users/:userId': {
    request: () => ({ url: `/api/orgs/${orgId}/users/${roleTarget}`, body: { role: 'admin' } }),
    expect: orgManagers(),
  },
  'DELETE /api/orgs/:id/users/:userId': {
    // Those who may remove get a member of their own to remove; the others aim at one who must stay.
    request: async (p) => ({
      url: `/api/orgs/${orgId}/users/${managers.includes(p) ? await spareMember() : survivor}`,
    }),
    expect: orgManagers(),
  },
  'POST /api/orgs/:id/leave': {
    request: async (p) => {
      if (orgPeople.includes(p)) await joinLeaveOrg(p);
      return { url: `/api/orgs/${leaveOrg}/leave` };
    },
    expect: orgMembers(),
  },
  'GET /api/orgs/:id/invitations': {
    request: () => ({ url: `/api/orgs/${orgId}/invitations` }),
    expect: orgManagers(),
  },
  'POST /api/orgs/:id/invitations': {
    request: () => ({ url: `/api/orgs/${orgId}/invitations`, body: { email: fresh(), role: 'member' } }),
    expect: orgManagers(),
  },
  'DELETE /api/orgs/:id/invitations/:invitationId': {
    request: async (p) => ({
      url: `/api/orgs/${orgId}/invitations/${managers.includes(p) ? await openInvitation() : survivorInvitation}`,
    }),
    expect: orgManagers(),
  },
  'GET /api/orgs/:id/audit': { request: () => ({ url: `/api/orgs/${orgId}/audit` }), expect: orgManagers() },
  'POST /api/invitations/preview': {
    request: () => ({ url: '/api/invitations/preview', body: { token: 'x'.repeat(43) } }),
    expect: anyone(),
  },
  'POST /api/invitations/accept': {
    request: () => ({ url: '/api/invitations/accept', body: { token: 'x'.repeat(43) } }),
    expect: signedIn(),
  },
  // The operator console's Accounts (identity, and billing for each person's plan).
  'GET /api/admin/users': { request: () => ({ url: '/api/admin/users?q=example.com' }), expect: adminOnly() },
  'GET /api/admin/organizations': { request: () => ({ url: '/api/admin/organizations' }), expect: adminOnly() },
  // The second organization: suspended by the operator, then reactivated by the next row.
  'POST /api/admin/organizations/:id/suspend': {
    request: () => ({ url: `/api/admin/organizations/${leaveOrg}/suspend`, body: { reason: 'Permission matrix.' } }),
    expect: adminOnly(),
  },
  'POST /api/admin/organizations/:id/reactivate': {
    request: () => ({ url: `/api/admin/organizations/${leaveOrg}/reactivate` }),
    expect: adminOnly(),
  },
  'GET /api/admin/admin-emails': { request: () => ({ url: '/api/admin/admin-emails' }), expect: adminOnly() },
  'POST /api/admin/admin-emails': {
    request: () => ({ url: '/api/admin/admin-emails', body: { email: fresh() } }),
    expect: adminOnly(),
  },
  'DELETE /api/admin/admin-emails/:email': {
    // The operator removes an address of its own adding; the others aim at one that must stay.
    request: async (p) => ({
      url: `/api/admin/admin-emails/${encodeURIComponent(p === 'admin' ? await operatorAddress() : keptAdminAddress)}`,
    }),
    expect: adminOnly(),
  },
  'GET /api/admin/audit': { request: () => ({ url: '/api/admin/audit' }), expect: adminOnly() },
  // Issue #26: one person's page (the organization's owner, a real person with a plan and devices).
  'GET /api/admin/users/:id': {
    request: () => ({ url: `/api/admin/users/${userIds.orgOwner}` }),
    expect: adminOnly(),
  },
  // An operator ends the sessions of a spare member (never a principal of the matrix) and would re-mail them.
  'POST /api/admin/users/:id/end-sessions': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/end-sessions` }),
    expect: adminOnly(),
  },
  // Suspending without a reason (400) and lifting a suspension nobody made (409): past every gate, nothing changes.
  'POST /api/admin/users/:id/suspend': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/suspend`, body: { reason: ' ' } }),
    expect: { ...adminOnly(), admin: 'allow' },
  },
  'POST /api/admin/users/:id/reactivate': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/reactivate` }),
    expect: { ...adminOnly(), admin: 'off' },
  },
  // Unmarking an account that is no test account: past every gate, nothing changes (200).
  'POST /api/admin/users/:id/test-account': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/test-account`, body: { is_test: false } }),
    expect: adminOnly(),
  },
  'POST /api/admin/users/:id/resend-verification': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/resend-verification` }),
    // Past every gate the operator is told the address is confirmed already (409).
    expect: { ...adminOnly(), admin: 'off' },
  },
  // The spare member has no plan: past every gate the operator is told there is nothing to refund (409).
  'POST /api/admin/users/:id/refund-latest': {
    request: () => ({ url: `/api/admin/users/${roleTarget}/refund-latest` }),
    expect: { ...adminOnly(), admin: 'off' },
  },
  // The operator console's fleet: platform admins only.
  'GET /api/admin/overview': { request: () => ({ url: '/api/admin/overview' }), expect: adminOnly() },
  'GET /api/admin/devices': { request: () => ({ url: '/api/admin/devices?per_page=10' }), expect: adminOnly() },
  'POST /api/admin-device': {
    request: async () => ({ url: '/api/admin-device', body: { action: 'suspend', deviceId: await adminTarget() } }),
    expect: adminOnly(),
  },
  'GET /api/admin/telemetry': { request: () => ({ url: '/api/admin/telemetry' }), expect: adminOnly() },
  'GET /api/admin/servers': { request: () => ({ url: '/api/admin/servers' }), expect: adminOnly() },
  'GET /api/admin/servers/:id/history': {
    request: () => ({ url: `/api/admin/servers/${matrixNodeId}/history` }),
    expect: adminOnly(),
  },
  'POST /api/admin/servers/:id/drain': {
    request: () => ({ url: `/api/admin/servers/${matrixNodeId}/drain`, body: { draining: false } }),
    expect: adminOnly(),
  },
  // A server's lifecycle (issue #23): added pending, a new token for it, retired (a pending one has no devices).
  // A name taken already: the admin reaches the work (409 name_taken) without adding a server devices could land on.
  'POST /api/admin/servers': {
    request: () => ({
      url: '/api/admin/servers',
      body: {
        name: 'matrix-pending',
        region: 'europe',
        city: 'Lyon',
        endpoint: '198.51.100.9:51820',
        tags: [],
        capacity: 10,
      },
    }),
    expect: { ...adminOnly(), admin: 'allow' },
  },
  'POST /api/admin/servers/:id/enrolment': {
    request: () => ({ url: `/api/admin/servers/${matrixPendingNodeId}/enrolment` }),
    expect: adminOnly(),
  },
  'POST /api/admin/servers/:id/retire': {
    request: () => ({ url: `/api/admin/servers/${matrixRetiredNodeId}/retire` }),
    expect: adminOnly(),
  },
  // A host's enrolment: public, the token is the proof (one nobody issued is refused alike for all).
  'POST /api/nodes/enrol': {
    request: () => ({ url: '/api/nodes/enrol', body: { token: 'n'.repeat(43) } }),
    expect: anyone(),
  },
};

/** An address on the admin list that every refused removal aims at. */
const keptAdminAddress = 'kept-admin@quietwire.test';
/** The removedAdmin principal's address: on the admin list for a moment during the set-up. */
const removedAdminAddress = 'gone-admin@quietwire.test';

/** An address the operator adds to the admin list, to be removed. */
async function operatorAddress(): Promise<string> {
  const email = fresh();
  const added = await as('admin').call('POST', '/api/admin/admin-emails', { email });
  if (added.statusCode !== 201) throw new Error(`admin email: ${added.statusCode} ${added.body}`);
  return email;
}

/** `by` adds a device to the organization, for `assignee` or else their own; answers its id. */
async function addOrgDevice(by: Principal, name: string, assignee?: string): Promise<string> {
  const created = await as(by).call('POST', `/api/orgs/${orgId}/devices`, {
    name,
    ...(assignee ? { assignee_id: assignee } : {}),
  });
  if (created.statusCode !== 201) throw new Error(`org device: ${created.statusCode} ${created.body}`);
  return created.data.device.id;
}

let matrixNodeId: string;
/** Servers added in the console and never enrolled: one given new tokens, one retired. */
let matrixPendingNodeId: string;
let matrixRetiredNodeId: string;
let adminTargetId: string | undefined;
/** An organization device (the owner's, for its member) that the admin row suspends. */
async function adminTarget(): Promise<string> {
  adminTargetId ??= await addOrgDevice('orgOwner', 'Operated by the console', userIds.orgMember);
  return adminTargetId;
}

/** An open invitation of the organization, made by its owner. */
async function openInvitation(): Promise<string> {
  const made = await as('orgOwner').call('POST', `/api/orgs/${orgId}/invitations`, { email: fresh(), role: 'member' });
  if (made.statusCode !== 201) throw new Error(`invitation: ${made.statusCode} ${made.body}`);
  return made.data.invitation.id;
}

const userIds = {} as Record<Principal, string>;

/** The principal joins the second organization, invited by its owner and accepted from the mail, to leave it again. */
async function joinLeaveOrg(principal: Principal): Promise<void> {
  await joinOrganization(stack, leaveOrg, leaveOrgOwner, { client: as(principal), email: emails[principal]! });
}

type Answer = { status: number; code: string | undefined };

/**
 * Every principal's answer judged against what the matrix expects of them (the removed admin
 * expected as `withRemovedAdmin` says).
 */
function expectOutcomes(expectedOf: Record<Principal, Outcome>, answers: Record<Principal, Answer>): void {
  const expected = withRemovedAdmin(expectedOf);
  const seen = Object.fromEntries(principals.map((p) => [p, judge(expected[p], answers[p], answers.anonymous)]));
  expect(seen).toEqual(expected);
}

function judge(expected: Outcome, answer: Answer, anonymous: Answer): Outcome | string {
  const { status, code } = answer;
  const refused =
    status >= 500 || status === 403 || (status === 401 && (code === 'not_signed_in' || code === 'invalid_token'));
  switch (expected) {
    case 'same':
      return status === anonymous.status && code === anonymous.code
        ? 'same'
        : `${status} ${code ?? ''} (anonymous: ${anonymous.status})`;
    case 'allow':
      return refused ? `${status} ${code ?? ''}` : 'allow';
    case 'ok':
      return status >= 200 && status < 300 ? 'ok' : `${status} ${code ?? ''}`;
    case 'signin':
      return status === 401 && code === 'not_signed_in' ? 'signin' : `${status} ${code ?? ''}`;
    case 'token':
      return status === 401 && code === 'invalid_token' ? 'token' : `${status} ${code ?? ''}`;
    case 'hidden':
      return status === 404 && code === 'not_found' ? 'hidden' : `${status} ${code ?? ''}`;
    case 'no_entitlement':
      return status === 403 && code === 'no_entitlement' ? 'no_entitlement' : `${status} ${code ?? ''}`;
    case 'forbidden':
      return status === 403 && code === 'forbidden' ? 'forbidden' : `${status} ${code ?? ''}`;
    case 'held':
      return status === 403 && code === 'suspended_by_higher_level' ? 'held' : `${status} ${code ?? ''}`;
    case 'off':
      return status === 409 && code === 'conflict' ? 'off' : `${status} ${code ?? ''}`;
  }
}

/** The principal as a fresh client with its cookies and token (a public route's answer must not replace them). */
function as(principal: Principal): Client {
  const source = clients[principal];
  const copy = new Client(stack.app, source.address);
  copy.cookies = new Map(source.cookies);
  copy.accessToken = source.accessToken;
  return copy;
}

beforeAll(async () => {
  stack = await startStack({
    label: 'matrix',
    adminEmails: ['ops@quietwire.test'],
    extra: (url, mail) => [...deviceServices(url, mail), analyticsService()],
  });
  matrixNodeId = (await registerTestNode(stack, 'matrix-node')).node_id;
  const address = (n: number) => `198.51.100.${n}`;
  const verified = (email: string, n: number) => signUpConfirmed(stack, email, address(n));
  clients.anonymous = new Client(stack.app, address(1));
  clients.personal = await customerWithPlan(stack, 'pia@example.com');
  await confirmEmail(stack, 'pia@example.com', 'correct horse battery', clients.personal);
  clients.other = await customerWithPlan(stack, 'olaf@example.com');
  await confirmEmail(stack, 'olaf@example.com', 'correct horse battery', clients.other);
  clients.orgOwner = await customerWithPlan(stack, 'owen@example.com', 'business10');
  await confirmEmail(stack, 'owen@example.com', 'correct horse battery', clients.orgOwner);
  clients.orgAdmin = await verified('ada@example.com', 5);
  clients.orgMember = await verified('max@example.com', 6);
  clients.admin = await verified('ops@quietwire.test', 7);
  // The owner's organization (made from the claim), with an admin and a member in it.
  orgId = await ownOrganization(clients.orgOwner);
  const orgBilling = (await clients.orgOwner.call('GET', `/api/billing?org_id=${orgId}`)).data;
  orgSubscriptionId = orgBilling.subscription.id;
  orgInvoiceId = orgBilling.invoices[0].id;
  for (const principal of ['orgAdmin', 'orgMember'] as const)
    await joinOrganization(
      stack,
      orgId,
      clients.orgOwner,
      { client: as(principal), email: emails[principal]! },
      principal === 'orgAdmin' ? 'admin' : 'member',
    );
  for (const principal of orgPeople) userIds[principal] = await userIdOf(clients[principal]);
  // People who never act here, only to be promoted or removed: signed up, invited and accepted like anyone.
  let spares = 0;
  spareMember = async () => {
    const email = `spare-${randomUUID().slice(0, 8)}@example.com`;
    const client = await signUp(stack, email, address(100 + spares++));
    await joinOrganization(stack, orgId, clients.orgOwner, { client, email });
    return userIdOf(client);
  };
  roleTarget = await spareMember();
  survivor = await spareMember();
  survivorInvitation = await openInvitation();
  const kept = await clients.admin.call('POST', '/api/admin/admin-emails', { email: keptAdminAddress });
  if (kept.statusCode !== 201) throw new Error(`admin email: ${kept.statusCode} ${kept.body}`);
  // An admin of the operator's adding, holding a token that says admin, then taken off the list.
  clients.removedAdmin = await verified(removedAdminAddress, 8);
  const promoted = await clients.admin.call('POST', '/api/admin/admin-emails', { email: removedAdminAddress });
  if (promoted.statusCode !== 201) throw new Error(`admin email: ${promoted.statusCode} ${promoted.body}`);
  await clients.removedAdmin.call('POST', '/api/auth/refresh');
  const console = await clients.removedAdmin.call('GET', '/api/admin/overview');
  if (console.statusCode !== 200) throw new Error(`the added admin has no console: ${console.statusCode}`);
  const demoted = await clients.admin.call(
    'DELETE',
    `/api/admin/admin-emails/${encodeURIComponent(removedAdminAddress)}`,
  );
  if (demoted.statusCode !== 204) throw new Error(`admin removal: ${demoted.statusCode} ${demoted.body}`);
  // The longest the gateway may still believe an answer about them from before the removal.
  await new Promise((resolve) => setTimeout(resolve, authorityMaxAgeMs));
  // The second organization, from its own owner's business purchase.
  leaveOrgOwner = await customerWithPlan(stack, 'lea@example.com', 'business10');
  leaveOrg = await ownOrganization(leaveOrgOwner);
  await organizationEventsHandled(stack);
  deviceOf = async () => {
    const created = await clients.personal.call('POST', '/api/devices', { name: 'Spare', platform: 'linux' });
    if (created.statusCode !== 201) throw new Error(`device: ${created.statusCode} ${created.body}`);
    return created.data.device.id;
  };
  sharedDevice = await deviceOf();
  subscriptionId = (await clients.personal.call('GET', '/api/billing')).data.subscription.id;
  // A config link's token, used as if it were an access token.
  const link = await clients.personal.call('POST', `/api/devices/${sharedDevice}/config-link`);
  clients.configLink = new Client(stack.app, address(9));
  clients.configLink.accessToken = new URL(link.data.url, 'http://x').searchParams.get('token')!;
  // Servers added in the console, never enrolled: one given new tokens, one retired.
  const pendingServer = async (name: string) => {
    const added = await clients.admin.call('POST', '/api/admin/servers', {
      name,
      region: 'asia',
      city: 'Tokyo',
      endpoint: '198.51.100.10:51820',
      tags: [],
      capacity: 10,
    });
    if (added.statusCode !== 201) throw new Error(`server: ${added.statusCode} ${added.body}`);
    // Drained at once, so no device is placed on a server that waits for its host.
    const id = added.data.server.id as string;
    await clients.admin.call('POST', `/api/admin/servers/${id}/drain`, { draining: true });
    return id;
  };
  matrixPendingNodeId = await pendingServer('matrix-pending');
  matrixRetiredNodeId = await pendingServer('matrix-retired');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Who the gateway is on the bus: its requests' answers come to its own inbox. */
const gatewayUser = () => stack.testBus.env('gateway').NATS_USER;

/** The subjects of the requests the gateway sent to services while `act` ran, as seen on the bus itself. */
async function askedBy(act: () => Promise<Answer>): Promise<{ answer: Answer; asked: string[] }> {
  const bus = await stack.connectAdmin();
  const asked: string[] = [];
  const subscription = bus.nc.subscribe('>', {
    callback: (_error, message) => {
      if (inboxOwnerOf(message.reply) === gatewayUser()) asked.push(message.subject);
    },
  });
  await bus.nc.flush();
  try {
    const answer = await act();
    // A request the gateway sent reached the server before its answer came back: one round trip
    // on this connection delivers it here.
    await bus.nc.flush();
    return { answer, asked };
  } finally {
    subscription.unsubscribe();
  }
}

const signedInPeople: Principal[] = ['personal', 'other', 'orgMember', 'orgAdmin', 'orgOwner'];

/**
 * The route table's gate, for every route from its contract: what the contract declares as access
 * is what the matrix expects and what the gateway does before any service is asked. The matrix's
 * own answers cannot tell a wrong declaration (the service refuses again, with the same answer);
 * the bus can: a request refused at the gate sends nothing to any service but identity's question
 * about who the caller is.
 */
describe("route access: each contract's declared access is what the gateway enforces", () => {
  for (const route of httpRoutes) {
    const key = `${route.method} ${route.url}`;
    it(`${key} (${accessName(route.access)})`, async () => {
      const row = matrix[key]!;
      const organization = isOrganizationAccess(route.access) ? route.access.organization : undefined;
      const needsPerson = route.access === 'signed-in' || route.access === 'admin' || organization !== undefined;
      const needsPersonOrLink = needsPerson || route.access === 'signed-in-or-link';
      // The matrix says the same as the contract.
      expect(row.expect.anonymous === 'signin', 'matrix: anonymous is asked to sign in').toBe(needsPersonOrLink);
      expect(
        signedInPeople.every((p) => row.expect[p] === 'forbidden'),
        'matrix: every signed-in non-admin is refused with 403',
      ).toBe(route.access === 'admin');
      // An organization's routes admit by role in it: a stranger finds nothing (404), and where
      // the matrix refuses its member (403), the contract says owners and admins only.
      expect(organization !== undefined, 'contract: an organization route declares an organization access').toBe(
        route.url.startsWith('/api/orgs/:id'),
      );
      if (organization !== undefined) {
        expect(row.expect.other, 'matrix: a stranger to the organization').toBe('hidden');
        expect(row.expect.orgMember === 'forbidden', 'matrix: its member is refused').toBe(organization === 'manager');
      }
      // The request is made first (making it may create what it names, a device to remove); only
      // sending it is watched. Each names real things of the matrix's people, so it is one their
      // handler would serve; a refusal at the gate leaves them as they were for the matrix below.
      const send = async (principal: Principal) => {
        const { url, body } = await row.request(principal);
        const headers: Record<string, string> =
          typeof body === 'string' ? { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' } : {};
        return askedBy(async () => {
          const response = await as(principal).call(route.method, url, body, headers);
          return { status: response.statusCode, code: response.data?.error?.code };
        });
      };
      if (needsPersonOrLink) {
        // No session and no link: refused before any service is asked, identity included.
        const { answer, asked } = await send('anonymous');
        expect({ ...answer, asked }, 'anonymous').toEqual({ status: 401, code: 'not_signed_in', asked: [] });
      }
      if (route.access === 'admin') {
        const { answer, asked } = await send('personal');
        expect(answer, 'a signed-in customer').toEqual({ status: 403, code: 'forbidden' });
        expect(asked.filter((subject) => subject !== 'identity.rpc.authority')).toEqual([]);
      }
      if (organization !== undefined) {
        // Someone of another organization: the route table finds them no member, asking identity
        // who they are (again, past its cache, before refusing) and no one else.
        const stranger = await send('other');
        expect(stranger.answer, 'a stranger').toEqual({ status: 404, code: 'not_found' });
        expect(stranger.asked.filter((subject) => subject !== 'identity.rpc.authority')).toEqual([]);
      }
      if (organization === 'manager') {
        const member = await send('orgMember');
        expect(member.answer, 'a member').toEqual({ status: 403, code: 'forbidden' });
        expect(member.asked.filter((subject) => subject !== 'identity.rpc.authority')).toEqual([]);
      }
    });
  }
});

describe('permission matrix', () => {
  it('has a row for every route the gateway serves', () => {
    const routes = httpRoutes.map((route) => `${route.method} ${route.url}`);
    expect(Object.keys(matrix).sort()).toEqual([...routes].sort());
  });

  for (const route of httpRoutes) {
    const key = `${route.method} ${route.url}`;
    it(`${key}: each caller allowed or refused as intended`, async () => {
      const row = matrix[key];
      expect(row, `${key} has no row in the permission matrix`).toBeDefined();
      const answers = {} as Record<Principal, Answer>;
      for (const principal of principals) {
        const { url, body, withoutSession } = await row!.request(principal);
        const headers: Record<string, string> =
          typeof body === 'string' ? { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=x' } : {};
        const client = as(principal);
        if (withoutSession) client.cookies = new Map();
        const response = await client.call(route.method, url, body, headers);
        answers[principal] = { status: response.statusCode, code: response.data?.error?.code };
      }
      expectOutcomes(row!.expect, answers);
    });
  }

  it("leaves personal's device and plan as they were after every refusal", async () => {
    const devices = stack.services.provisioning!.db;
    const device = await devices
      .selectFrom('devices')
      .selectAll()
      .where('id', '=', sharedDevice)
      .executeTakeFirstOrThrow();
    // Each caller tried its own name: only its own person's stuck.
    expect(device.name).toBe('Renamed by personal');
    const subscription = await sql<{
      status: string;
    }>`select status from subscriptions where id = ${subscriptionId}`.execute(stack.services.billing!.db);
    expect(subscription.rows[0]?.status).toBe('canceled');
    // The organization's plan: only its owner's upgrade went through, charged once.
    const orgPlan = await sql<{ plan_code: string; invoices: number }>`select plan_code,
      (select count(*)::int from invoices where subscription_id = s.id) as invoices
      from subscriptions s where id = ${orgSubscriptionId}`.execute(stack.services.billing!.db);
    expect(orgPlan.rows[0]).toEqual({ plan_code: 'business50', invoices: 2 });
  });

  it('leaves the organization as its owner and admin made it after every refusal', async () => {
    const identity = stack.services.identity!.db;
    const org = await identity
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', orgId)
      .executeTakeFirstOrThrow();
    // Each caller tried its own name: the last one allowed (the owner) stuck.
    expect(org.name).toBe('Renamed by orgOwner');
    const members = await identity
      .selectFrom('org_members')
      .select(['user_id', 'role'])
      .where('org_id', '=', orgId)
      .execute();
    const roles = Object.fromEntries(members.map((m) => [m.user_id, m.role]));
    expect(roles[survivor]).toBe('member');
    expect(roles[roleTarget]).toBe('admin');
    expect(roles[userIds.orgOwner]).toBe('owner');
    const invitations = await identity.selectFrom('invitations').selectAll().where('org_id', '=', orgId).execute();
    expect(invitations.find((i) => i.id === survivorInvitation)).toMatchObject({ revoked_at: null, accepted_at: null });
    expect(new Set(invitations.map((i) => i.invited_by))).toEqual(new Set([userIds.orgOwner, userIds.orgAdmin]));
    const entries = await identity.selectFrom('audit_log').selectAll().where('org_id', '=', orgId).execute();
    // Changes of people and invitations (those who join are the actors of their own joining).
    const changes = entries.filter((e) => /^(member|invitation)\./.test(e.kind) && e.kind !== 'member.joined');
    expect(new Set(changes.map((e) => e.actor_id))).toEqual(new Set([userIds.orgOwner, userIds.orgAdmin]));
    expect(entries.filter((e) => e.kind === 'member.role_changed')).toHaveLength(1);
    expect(entries.filter((e) => e.kind === 'member.removed')).toHaveLength(2);
    const leavers = await identity.selectFrom('org_members').select('user_id').where('org_id', '=', leaveOrg).execute();
    expect(leavers).toHaveLength(1);
    // Organization devices: only its people's adds were written, each once.
    const added = await stack.services
      .provisioning!.db.selectFrom('devices')
      .select('name')
      .where('org_id', '=', orgId)
      .where('name', 'like', 'Matrix %')
      .execute();
    expect(added.map((d) => d.name).sort()).toEqual(['Matrix orgAdmin', 'Matrix orgMember', 'Matrix orgOwner']);
  });
});

describe('permission matrix: the operator console left as the operator made it', () => {
  it("records only the operator's own changes, and the refused ones changed nothing", async () => {
    const identity = stack.services.identity!.db;
    const adminId = await userIdOf(clients.admin);
    const audit = await identity.selectFrom('admin_audit').select(['kind', 'actor_id']).execute();
    expect(new Set(audit.map((entry) => entry.actor_id))).toEqual(new Set([adminId]));
    const counts: Record<string, number> = {};
    for (const entry of audit) counts[entry.kind] = (counts[entry.kind] ?? 0) + 1;
    // The kept address, the removed admin's (added and removed in the set-up), the POST row's, and
    // the one the DELETE row added and removed.
    expect(counts).toEqual({
      'admin_email.added': 4,
      'admin_email.removed': 2,
      'organization.suspended': 1,
      'organization.reactivated': 1,
      // The spare member's, by the operator's row (issue #26); their address is confirmed (they
      // joined by an invitation to it), so resending verification is refused and records nothing.
      'user.sessions_ended': 1,
    });
    const kept = await identity
      .selectFrom('admin_emails')
      .select('email')
      .where('email', '=', keptAdminAddress)
      .executeTakeFirst();
    expect(kept).toBeDefined();
    const leaving = await identity
      .selectFrom('organizations')
      .select(['is_active', 'suspended_by_operator'])
      .where('id', '=', leaveOrg)
      .executeTakeFirstOrThrow();
    expect(leaving).toEqual({ is_active: true, suspended_by_operator: false });
  });
});

/**
 * The device routes on an organization's device: orgMember's own (added for them by orgOwner).
 * Its person may do everything; the organization's owner and admin everything but the
 * configuration (its private key is its person's alone); a platform admin suspend and activate;
 * anyone else, another member of the organization included, finds no such device.
 */
describe('permission matrix: an organization device through /api/devices/:id', () => {
  type DeviceCase = {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    path: (id: string) => string;
    body?: (p: Principal) => unknown;
    /** A device of its own for each caller (removing it). */
    fresh?: boolean;
    expect: Record<Principal, Outcome>;
  };
  const person = (): Record<Principal, Outcome> => ({ ...nobody(), orgMember: 'ok' });
  const managed = (): Record<Principal, Outcome> => ({ ...person(), orgAdmin: 'ok', orgOwner: 'ok' });
  const operated = (): Record<Principal, Outcome> => ({ ...managed(), admin: 'ok' });
  const cases: Record<string, DeviceCase> = {
    rename: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}`,
      body: (p) => ({ name: `By ${p}` }),
      expect: managed(),
    },
    suspend: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}`,
      body: () => ({ is_active: false }),
      expect: operated(),
    },
    activate: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}`,
      body: () => ({ is_active: true }),
      expect: operated(),
    },
    'request key': { method: 'POST', path: (id) => `/api/devices/${id}/key`, body: () => ({}), expect: managed() },
    config: { method: 'GET', path: (id) => `/api/device/${id}/config`, expect: person() },
    'config link': { method: 'POST', path: (id) => `/api/devices/${id}/config-link`, expect: person() },
    'peer info': { method: 'GET', path: (id) => `/api/devices/${id}/peer-info`, expect: person() },
    remove: { method: 'DELETE', path: (id) => `/api/devices/${id}`, fresh: true, expect: managed() },
  };

  const memberDevice = (name: string) => addOrgDevice('orgOwner', name, userIds.orgMember);

  for (const [name, row] of Object.entries(cases)) {
    it(`${name}: each caller allowed or refused as intended`, async () => {
      const shared = row.fresh ? undefined : await memberDevice(`Shared ${name}`);
      const answers = {} as Record<Principal, Answer>;
      for (const principal of principals) {
        const id = shared ?? (await memberDevice(`For ${principal}`));
        const response = await as(principal).call(row.method, row.path(id), row.body?.(principal));
        answers[principal] = { status: response.statusCode, code: response.data?.error?.code };
        // Within the member's 5 and the plan's 10.
        if (!shared) await as('orgOwner').call('DELETE', `/api/devices/${id}`);
      }
      if (shared) await as('orgOwner').call('DELETE', `/api/devices/${shared}`);
      expectOutcomes(row.expect, answers);
    });
  }

  it("another member's device is no device of orgMember's: the owner's own device", async () => {
    const created = await as('orgOwner').call('POST', `/api/orgs/${orgId}/devices`, { name: 'Owner laptop' });
    const id = created.data.device.id;
    for (const [method, url, body] of [
      ['PATCH', `/api/devices/${id}`, { is_active: false }],
      ['POST', `/api/devices/${id}/key`, {}],
      ['GET', `/api/device/${id}/config`, undefined],
      ['DELETE', `/api/devices/${id}`, undefined],
    ] as const) {
      const answer = await as('orgMember').call(method, url, body);
      expect({ status: answer.statusCode, code: answer.data?.error?.code }, `${method} ${url}`).toEqual({
        status: 404,
        code: 'not_found',
      });
    }
    const after = await stack.services
      .provisioning!.db.selectFrom('devices')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(after.is_active).toBe(true);
    await as('orgOwner').call('DELETE', `/api/devices/${id}`);
  });
});

/**
 * Devices held off at a level, and the owner's device (issue #20): a suspension is lifted only at
 * its own level or a higher one (operator > the organization's owners and admins > the device's
 * person), and an organization's admin does nothing to its owner's devices. Before each caller the
 * device is put back as it was (adding a fresh one each time would meet the fair-use add limit).
 */
describe('permission matrix: devices held off at a level, and the owner’s device', () => {
  /** `other`'s: personal's plan was cancelled by a row of the first matrix. */
  const personalDevice = async (): Promise<string> => {
    const created = await as('other').call('POST', '/api/devices', { name: 'Held', platform: 'linux' });
    if (created.statusCode !== 201) throw new Error(`device: ${created.statusCode} ${created.body}`);
    return created.data.device.id;
  };
  const orgDevice = (assignee?: string) => addOrgDevice('orgOwner', 'Held', assignee);
  const provisioningDevice = (id: string) =>
    stack.services
      .provisioning!.db.selectFrom('devices')
      .select(['is_active', 'suspended_by'])
      .where('id', '=', id)
      .executeTakeFirst();
  const suspendAs = async (principal: Principal, id: string): Promise<void> => {
    const answer =
      principal === 'admin'
        ? await as('admin').call('POST', '/api/admin-device', { action: 'suspend', deviceId: id })
        : await as(principal).call('PATCH', `/api/devices/${id}`, { is_active: false });
    if (answer.statusCode !== 200) throw new Error(`suspend as ${principal}: ${answer.statusCode} ${answer.body}`);
  };
  /** Off at `level`'s hand, whatever a caller before did to it (the operator lifts any suspension). */
  const holdAs = async (level: Principal, id: string): Promise<void> => {
    const device = await provisioningDevice(id);
    if (device?.is_active === false) {
      const lifted = await as('admin').call('POST', '/api/admin-device', { action: 'activate', deviceId: id });
      if (lifted.statusCode !== 200) throw new Error(`activate: ${lifted.statusCode} ${lifted.body}`);
    }
    await suspendAs(level, id);
  };

  type Kind = {
    make: () => Promise<string>;
    heldBy: Principal;
    removeAs: Principal;
    expect: Record<Principal, Outcome>;
  };
  const kinds: Record<string, Kind> = {
    'a personal device, suspended by an operator': {
      make: personalDevice,
      heldBy: 'admin',
      removeAs: 'other',
      expect: { ...nobody(), other: 'held', admin: 'ok' },
    },
    "orgMember's device, suspended by an operator": {
      make: () => orgDevice(userIds.orgMember),
      heldBy: 'admin',
      removeAs: 'orgOwner',
      expect: { ...nobody(), orgMember: 'held', orgAdmin: 'held', orgOwner: 'held', admin: 'ok' },
    },
    "orgMember's device, suspended by the organization's admin": {
      make: () => orgDevice(userIds.orgMember),
      heldBy: 'orgAdmin',
      removeAs: 'orgOwner',
      expect: { ...nobody(), orgMember: 'held', orgAdmin: 'ok', orgOwner: 'ok', admin: 'ok' },
    },
  };

  for (const [name, kind] of Object.entries(kinds)) {
    for (const [verb, body] of [
      ['activate', { is_active: true }],
      ['suspend again', { is_active: false }],
    ] as const) {
      it(`${name}: ${verb}, each caller allowed or refused as intended`, async () => {
        const id = await kind.make();
        const answers = {} as Record<Principal, Answer>;
        for (const principal of principals) {
          await holdAs(kind.heldBy, id);
          const response = await as(principal).call('PATCH', `/api/devices/${id}`, body);
          answers[principal] = { status: response.statusCode, code: response.data?.error?.code };
          // A refusal changed nothing: the device is still off at its level.
          if (response.statusCode >= 400) {
            expect(await provisioningDevice(id), principal).toEqual({
              is_active: false,
              suspended_by: kind.heldBy === 'admin' ? 'operator' : 'organization',
            });
          }
        }
        await as(kind.removeAs).call('DELETE', `/api/devices/${id}`);
        expectOutcomes(kind.expect, answers);
      });
    }
  }

  /**
   * The other device routes on a device held off: its people still rename it, ask for a key or
   * remove it; its configuration is not given out while it is off (409, past every gate); the
   * operator does none of them.
   */
  const heldDeviceRoutes: Record<
    string,
    {
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
      path: (id: string) => string;
      body?: unknown;
      personOnly?: true;
      outcome?: Outcome;
    }
  > = {
    rename: { method: 'PATCH', path: (id) => `/api/devices/${id}`, body: { name: 'Still mine' } },
    'request key': { method: 'POST', path: (id) => `/api/devices/${id}/key`, body: {} },
    config: { method: 'GET', path: (id) => `/api/device/${id}/config`, personOnly: true, outcome: 'off' },
    'config link': { method: 'POST', path: (id) => `/api/devices/${id}/config-link`, personOnly: true, outcome: 'off' },
    'peer info': { method: 'GET', path: (id) => `/api/devices/${id}/peer-info`, personOnly: true, outcome: 'off' },
    remove: { method: 'DELETE', path: (id) => `/api/devices/${id}` },
  };
  /** One device per kind for all these routes, made again only once a caller removed it. */
  const heldDevices = new Map<string, string>();
  /** The organization's admin adds these for the member: the owner's adds are near the fair-use add limit. */
  const makeHeld = (kind: (typeof kinds)[string]) =>
    kind.removeAs === 'other' ? kind.make() : addOrgDevice('orgAdmin', 'Held', userIds.orgMember);
  for (const [name, kind] of Object.entries(kinds)) {
    for (const [routeName, route] of Object.entries(heldDeviceRoutes)) {
      it(`${name}: ${routeName}, each caller allowed or refused as intended`, async () => {
        const people: Principal[] =
          kind.removeAs === 'other' ? ['other'] : route.personOnly ? ['orgMember'] : ['orgMember', ...managers];
        const expected = {
          ...nobody(),
          ...Object.fromEntries(people.map((p) => [p, route.outcome ?? ('ok' as Outcome)])),
        };
        const answers = {} as Record<Principal, Answer>;
        for (const principal of principals) {
          // Held off at its level before each caller; made again once a caller removed it.
          let id = heldDevices.get(name);
          if (!id || !(await provisioningDevice(id))) {
            id = await makeHeld(kind);
            heldDevices.set(name, id);
          }
          await holdAs(kind.heldBy, id);
          const response = await as(principal).call(route.method, route.path(id), route.body);
          answers[principal] = { status: response.statusCode, code: response.data?.error?.code };
        }
        expectOutcomes(expected, answers);
      });
    }
  }

  /** Every device route on orgOwner's own device: its admin is refused each (403), its person does each. */
  const ownerDeviceRoutes: Record<
    string,
    { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: (id: string) => string; body?: () => unknown; operator?: true }
  > = {
    rename: { method: 'PATCH', path: (id) => `/api/devices/${id}`, body: () => ({ name: 'Taken over' }) },
    suspend: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}`,
      body: () => ({ is_active: false }),
      operator: true,
    },
    activate: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}`,
      body: () => ({ is_active: true }),
      operator: true,
    },
    'request key': { method: 'POST', path: (id) => `/api/devices/${id}/key`, body: () => ({}) },
    'key rotation': {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}/key-rotation`,
      body: () => ({ every_days: 90 }),
    },
    privacy: {
      method: 'PATCH',
      path: (id) => `/api/devices/${id}/privacy`,
      body: () => ({ blocking: ['trackers'], split_tunnel: 'except_local' }),
    },
    config: { method: 'GET', path: (id) => `/api/device/${id}/config` },
    'config link': { method: 'POST', path: (id) => `/api/devices/${id}/config-link` },
    'peer info': { method: 'GET', path: (id) => `/api/devices/${id}/peer-info` },
    // After the routes that need the key the server holds (a chosen key leaves it none).
    'choose key': {
      method: 'POST',
      path: (id) => `/api/devices/${id}/key`,
      body: () => ({ public_key: generateKeyPair().publicKey }),
    },
    remove: { method: 'DELETE', path: (id) => `/api/devices/${id}` },
  };
  let ownerDevice: string | undefined;
  for (const [name, route] of Object.entries(ownerDeviceRoutes)) {
    it(`orgOwner's device, ${name}: orgAdmin refused, each caller as intended`, async () => {
      const expected: Record<Principal, Outcome> = {
        ...nobody(),
        orgOwner: 'ok',
        orgAdmin: 'forbidden',
        admin: route.operator ? 'ok' : 'hidden',
      };
      const answers = {} as Record<Principal, Answer>;
      for (const principal of principals) {
        // Put back as the owner keeps it: there, and on.
        const device = ownerDevice ? await provisioningDevice(ownerDevice) : undefined;
        if (!device) ownerDevice = await orgDevice();
        else if (!device.is_active)
          await as('admin').call('POST', '/api/admin-device', { action: 'activate', deviceId: ownerDevice });
        const before = await provisioningDevice(ownerDevice!);
        const response = await as(principal).call(route.method, route.path(ownerDevice!), route.body?.());
        answers[principal] = { status: response.statusCode, code: response.data?.error?.code };
        if (response.statusCode >= 400) expect(await provisioningDevice(ownerDevice!), principal).toEqual(before);
      }
      expectOutcomes(expected, answers);
    });
  }
});
