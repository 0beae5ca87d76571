import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminAccountRoutes, adminUsersRpc, type HttpRoute } from '@qw/contracts';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import { eventually, testCallerKeys } from '@qw/testkit';
import { Client, confirmEmail, signUp, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { organizationEventsHandled, organizationStatus, ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * The operator console's Accounts through the gateway on the real stack (identity, billing,
 * provisioning, telemetry): the users and organizations pages, suspending and reactivating an
 * organization (its devices stop and come back, as its owner sees them), the admin list (an
 * address added is admin from its next refresh, one removed loses the console at once), the
 * operators' audit, and every refusal.
 */
const password = 'correct horse battery';
const rootEmail = 'root@quietwire.test';
/** On ADMIN_EMAILS but never verified: named, not proven. */
const lateEmail = 'late@quietwire.test';
const noraEmail = 'nora@example.com';
const pagingDomain = `paging-${randomUUID().slice(0, 6)}.test`;

let stack: Stack;
let root: Client;
let rootId: string;
let pia: Client;
let piaId: string;
let owen: Client;
let owenId: string;
let nora: Client;
let late: Client;
let orgId: string;
let addresses = 10;
const address = () => `198.51.100.${addresses++}`;

type Answer = Awaited<ReturnType<Client['call']>>;
const status = (answer: Answer) => ({ status: answer.statusCode, code: answer.data?.error?.code });

/** A new account, signed up from an address of its own. */
const account = (email: string): Promise<Client> => signUp(stack, email, address(), password);

async function refresh(client: Client): Promise<Answer> {
  const answer = await client.call('POST', '/api/auth/refresh');
  if (answer.statusCode !== 200) throw new Error(`refresh: ${answer.statusCode} ${answer.body}`);
  return answer;
}

const orgDevices = async () =>
  (await owen.call('GET', `/api/orgs/${orgId}/devices`)).data.devices as Array<{ id: string; is_active: boolean }>;

beforeAll(async () => {
  stack = await startStack({
    label: 'admin-accounts',
    adminEmails: [rootEmail, lateEmail],
    extra: (url, mail) => deviceServices(url, mail),
  });
  await registerTestNode(stack, 'accounts-node');
  root = await confirmEmail(stack, rootEmail, password, await account(rootEmail));
  rootId = await userIdOf(root);
  late = await account(lateEmail);
  pia = await customerWithPlan(stack, 'pia@example.com');
  await confirmEmail(stack, 'pia@example.com', password, pia);
  piaId = await userIdOf(pia);
  owen = await customerWithPlan(stack, 'owen@example.com', 'business10');
  await confirmEmail(stack, 'owen@example.com', password, owen);
  owenId = await userIdOf(owen);
  orgId = await ownOrganization(owen);
  for (const name of ['Owen laptop', 'Owen phone']) {
    const added = await owen.call('POST', `/api/orgs/${orgId}/devices`, { name });
    if (added.statusCode !== 201) throw new Error(`org device: ${added.statusCode} ${added.body}`);
  }
  nora = await confirmEmail(stack, noraEmail, password, await account(noraEmail));
  // Twelve people to page through, one of them with a name to search for.
  for (let i = 0; i < 12; i++) {
    const person = await account(`p${String(i).padStart(2, '0')}@${pagingDomain}`);
    if (i === 7) await person.call('PATCH', '/api/me/profile', { full_name: 'Zelda Quartermaine' });
  }
  await organizationEventsHandled(stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the users page', () => {
  it('searches, sorts and pages on the server, with the total', async () => {
    const first = await root.call('GET', `/api/admin/users?q=${pagingDomain}&sort=email&dir=asc&per_page=10&page=1`);
    expect(first.statusCode).toBe(200);
    expect(first.data).toMatchObject({ total: 12, page: 1, per_page: 10 });
    expect(first.data.rows).toHaveLength(10);
    const second = await root.call('GET', `/api/admin/users?q=${pagingDomain}&sort=email&dir=asc&per_page=10&page=2`);
    expect(second.data).toMatchObject({ total: 12, page: 2, per_page: 10 });
    const emails = [...first.data.rows, ...second.data.rows].map((row: { email: string }) => row.email);
    expect(emails).toEqual(Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, '0')}@${pagingDomain}`));
    const descending = await root.call('GET', `/api/admin/users?q=${pagingDomain}&sort=email&dir=desc&per_page=10`);
    expect(descending.data.rows.map((row: { email: string }) => row.email)).toEqual([...emails].reverse().slice(0, 10));
    // Past the last page: no rows, the same total.
    const beyond = await root.call('GET', `/api/admin/users?q=${pagingDomain}&page=3&per_page=10`);
    expect(beyond.data).toMatchObject({ rows: [], total: 12, page: 3 });
  });

  it('finds a person by a part of the name, case-insensitively, and takes % literally', async () => {
    const byName = await root.call('GET', '/api/admin/users?q=quarterMAINE');
    expect(byName.data.total).toBe(1);
    expect(byName.data.rows[0]).toMatchObject({ email: `p07@${pagingDomain}`, full_name: 'Zelda Quartermaine' });
    const wildcard = await root.call('GET', '/api/admin/users?q=%25');
    expect(wildcard.data).toMatchObject({ total: 0, rows: [] });
  });

  it("shows each person's type, plan, organizations and admin rights", async () => {
    const all = await root.call('GET', '/api/admin/users?q=quietwire.test&sort=email&dir=asc');
    const byEmail = Object.fromEntries(all.data.rows.map((row: { email: string }) => [row.email, row]));
    expect(byEmail[rootEmail]).toMatchObject({ id: rootId, is_admin: true, role: 'admin', email_verified: true });
    // Named on the list, never verified: no rights.
    expect(byEmail[lateEmail]).toMatchObject({ is_admin: false, role: 'client', email_verified: false });
    const customers = await root.call('GET', '/api/admin/users?q=example.com&sort=email&dir=asc&per_page=100');
    const rows = Object.fromEntries(customers.data.rows.map((row: { email: string }) => [row.email, row]));
    expect(rows['pia@example.com']).toMatchObject({
      id: piaId,
      account_type: 'personal',
      plan: 'personal',
      organizations: 0,
      is_admin: false,
    });
    // A business owner's plan is the organization's, not a personal one.
    expect(rows['owen@example.com']).toMatchObject({
      id: owenId,
      account_type: 'business',
      plan: null,
      organizations: 1,
    });
  });

  it('sorts newest first by default and refuses page sizes outside 10 to 100', async () => {
    const newest = await root.call('GET', '/api/admin/users');
    const created = newest.data.rows.map((row: { created_at: string }) => row.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(newest.data.per_page).toBe(25);
    for (const query of ['per_page=9', 'per_page=101', 'page=0', 'sort=password', 'dir=sideways']) {
      const refused = await root.call('GET', `/api/admin/users?${query}`);
      expect(status(refused), query).toEqual({ status: 400, code: 'validation_failed' });
    }
  });
});

describe('organizations', () => {
  it('lists name, plan, members and status, searched and filtered', async () => {
    const list = await root.call('GET', '/api/admin/organizations');
    expect(list.statusCode).toBe(200);
    expect(list.data.total).toBe(1);
    expect(list.data.rows[0]).toMatchObject({
      id: orgId,
      plan: 'business10',
      members: 1,
      status: 'Active',
      suspended_by_operator: false,
    });
    const name = list.data.rows[0].name as string;
    expect(
      (await root.call('GET', `/api/admin/organizations?q=${encodeURIComponent(name.slice(0, 3))}`)).data.total,
    ).toBe(1);
    expect((await root.call('GET', '/api/admin/organizations?q=nothing-like-it')).data.total).toBe(0);
    expect((await root.call('GET', '/api/admin/organizations?status=Suspended')).data.total).toBe(0);
  });

  it('suspending stops its devices (as its owner sees them) and reactivating brings them back', async () => {
    expect((await orgDevices()).map((d) => d.is_active)).toEqual([true, true]);
    // Issue #26: a suspension says why; without a reason (or with only spaces) nothing changes.
    for (const body of [undefined, {}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(501) }])
      expect(
        status(await root.call('POST', `/api/admin/organizations/${orgId}/suspend`, body)),
        JSON.stringify(body),
      ).toEqual({ status: 400, code: 'validation_failed' });
    expect(await organizationStatus(owen, orgId)).toBe('Active');
    const suspended = await root.call('POST', `/api/admin/organizations/${orgId}/suspend`, {
      reason: ' Chargebacks on three cards. ',
    });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.data).toMatchObject({
      id: orgId,
      status: 'Suspended',
      suspended_by_operator: true,
      suspension_reason: 'Chargebacks on three cards.',
    });
    expect(await organizationStatus(owen, orgId)).toBe('Suspended');
    // Its members read the reason in the operator's words; the operators' audit keeps it.
    const seen = await owen.call('GET', `/api/orgs/${orgId}`);
    expect(seen.data.suspension_reason).toBe('Chargebacks on three cards.');
    const audit = await root.call('GET', '/api/admin/audit');
    const entry = audit.data.rows.find((row: { kind: string }) => row.kind === 'organization.suspended');
    expect(entry.details).toMatchObject({ reason: 'Chargebacks on three cards.' });
    await organizationEventsHandled(stack);
    await eventually(async () => (await orgDevices()).every((d) => !d.is_active), 15_000, 100);
    // Its owner cannot switch them back on while an operator holds it.
    const [first] = await orgDevices();
    const activate = await owen.call('PATCH', `/api/devices/${first!.id}`, { is_active: true });
    // The refusal names the operator's suspension; renewing the plan would change nothing.
    const byOperator = {
      status: 403,
      code: 'suspended_by_operator',
      message:
        'This organization is suspended by the Quietwire service operator. Its devices cannot be added or activated until the suspension is lifted. Contact support for details.',
    };
    const refusal = (answer: Answer) => ({ ...status(answer), message: answer.data?.error?.message });
    expect(refusal(activate)).toEqual(byOperator);
    expect(refusal(await owen.call('POST', `/api/orgs/${orgId}/devices`, { name: 'Owen tablet' }))).toEqual(byOperator);
    expect((await root.call('GET', '/api/admin/organizations?status=Suspended')).data.rows[0].id).toBe(orgId);
    // Twice is refused and changes nothing.
    expect(status(await root.call('POST', `/api/admin/organizations/${orgId}/suspend`, { reason: 'Again.' }))).toEqual({
      status: 409,
      code: 'conflict',
    });

    const reactivated = await root.call('POST', `/api/admin/organizations/${orgId}/reactivate`);
    expect(reactivated.statusCode).toBe(200);
    expect(reactivated.data).toMatchObject({ status: 'Active', suspended_by_operator: false, suspension_reason: null });
    expect(await organizationStatus(owen, orgId)).toBe('Active');
    expect((await owen.call('GET', `/api/orgs/${orgId}`)).data.suspension_reason).toBeNull();
    await organizationEventsHandled(stack);
    await eventually(async () => (await orgDevices()).every((d) => d.is_active), 15_000, 100);
    expect(status(await root.call('POST', `/api/admin/organizations/${orgId}/reactivate`))).toEqual({
      status: 409,
      code: 'conflict',
    });
  });

  it('answers 404 for an organization that does not exist or a malformed id', async () => {
    for (const id of [randomUUID(), 'not-an-id'])
      for (const action of ['suspend', 'reactivate'])
        expect(
          status(
            await root.call(
              'POST',
              `/api/admin/organizations/${id}/${action}`,
              action === 'suspend' ? { reason: 'Test.' } : undefined,
            ),
          ),
          `${action} ${id}`,
        ).toEqual({
          status: 404,
          code: 'not_found',
        });
  });
});

describe('the admin list', () => {
  it('lists the configured addresses as not removable here', async () => {
    const list = await root.call('GET', '/api/admin/admin-emails');
    expect(list.statusCode).toBe(200);
    expect(list.data.emails).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: rootEmail, is_admin: true, from_config: true }),
        expect.objectContaining({ email: lateEmail, from_config: true }),
      ]),
    );
  });

  it('an address added is admin from its next refresh; removed, it loses the console at once', async () => {
    expect(status(await nora.call('GET', '/api/admin/users'))).toEqual({ status: 403, code: 'forbidden' });
    const added = await root.call('POST', '/api/admin/admin-emails', { email: ' Nora@Example.com ' });
    expect(added.statusCode).toBe(201);
    expect(added.data).toMatchObject({ email: noraEmail, is_admin: true, from_config: false });
    // Her current token was made before: the next refresh decides again.
    const refreshed = await refresh(nora);
    expect(refreshed.data.user.is_admin).toBe(true);
    expect((await nora.call('GET', '/api/me')).data).toMatchObject({ is_admin: true, role: 'admin' });
    expect((await nora.call('GET', '/api/admin/users')).statusCode).toBe(200);
    expect(status(await root.call('POST', '/api/admin/admin-emails', { email: noraEmail }))).toEqual({
      status: 409,
      code: 'already_exists',
    });

    // Nobody removes their own address, nor one the configuration sets.
    const self = await nora.call('DELETE', `/api/admin/admin-emails/${encodeURIComponent(noraEmail)}`);
    expect(status(self)).toEqual({ status: 409, code: 'cannot_remove_self' });
    expect(self.data.error.message).toBe('You cannot remove your own address from the admin list.');
    expect(status(await root.call('DELETE', `/api/admin/admin-emails/${encodeURIComponent(rootEmail)}`))).toEqual({
      status: 409,
      code: 'cannot_remove_self',
    });
    expect(status(await nora.call('DELETE', `/api/admin/admin-emails/${encodeURIComponent(rootEmail)}`))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect(status(await root.call('DELETE', '/api/admin/admin-emails/nobody%40example.com'))).toEqual({
      status: 404,
      code: 'not_found',
    });

    const removed = await root.call('DELETE', `/api/admin/admin-emails/${encodeURIComponent(noraEmail)}`);
    expect(removed.statusCode).toBe(204);
    // Her access token still says admin: identity asks the list, and the list says no.
    expect(status(await nora.call('GET', '/api/admin/users'))).toEqual({ status: 403, code: 'forbidden' });
    expect(status(await nora.call('POST', '/api/admin/admin-emails', { email: 'again@example.com' }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    // Her sessions ended with it (issue #20): no refresh mints another admin claim.
    const ended = await nora.call('POST', '/api/auth/refresh');
    expect(status(ended)).toEqual({ status: 401, code: 'invalid_token' });
    expect((await nora.call('GET', '/api/me')).data).toMatchObject({ is_admin: false, role: 'client' });
    const list = await root.call('GET', '/api/admin/admin-emails');
    expect(list.data.emails.map((e: { email: string }) => e.email)).not.toContain(noraEmail);
  });

  it('refuses an address that is not one', async () => {
    for (const email of ['not an address', '', 'a@b'])
      expect(status(await root.call('POST', '/api/admin/admin-emails', { email })), email).toEqual({
        status: 400,
        code: 'validation_failed',
      });
  });
});

describe("the operators' audit", () => {
  it('records every accounts change with the acting admin, newest first', async () => {
    const audit = await root.call('GET', '/api/admin/audit?per_page=10');
    expect(audit.statusCode).toBe(200);
    expect(audit.data).toMatchObject({ total: 4, per_page: 10, next: null });
    expect(
      audit.data.rows.map((row: { kind: string; target: string; actor_id: string; actor_email: string }) => [
        row.kind,
        row.actor_id,
        row.actor_email,
      ]),
    ).toEqual([
      ['admin_email.removed', rootId, rootEmail],
      ['admin_email.added', rootId, rootEmail],
      ['organization.reactivated', rootId, rootEmail],
      ['organization.suspended', rootId, rootEmail],
    ]);
    expect(audit.data.rows[0].target).toBe(noraEmail);
    expect(audit.data.rows[3].details).toMatchObject({ org_id: orgId, status: 'Suspended' });
  });

  it("merges provisioning's device and node actions in, newest first, paged by a cursor", async () => {
    const devices = (await owen.call('GET', `/api/orgs/${orgId}/devices`)).data.devices as Array<{
      id: string;
      name: string;
    }>;
    const [laptop, phone] = ['Owen laptop', 'Owen phone'].map((name) => devices.find((d) => d.name === name));
    const servers = await root.call('GET', '/api/admin/servers');
    const node = servers.data.servers.find((server: { name: string }) => server.name === 'accounts-node');
    const extra = 'audit-extra@example.com';
    const steps: Array<[string, string, unknown]> = [
      ['POST', '/api/admin-device', { action: 'suspend', deviceId: laptop!.id }],
      ['POST', '/api/admin/admin-emails', { email: extra }],
      ['POST', `/api/admin/servers/${node.id}/drain`, { draining: true }],
      ['DELETE', `/api/admin/admin-emails/${encodeURIComponent(extra)}`, undefined],
      ['POST', '/api/admin-device', { action: 'activate', deviceId: laptop!.id }],
      ['POST', `/api/admin/servers/${node.id}/drain`, { draining: false }],
      ['POST', '/api/admin-device', { action: 'revoke_keys', deviceId: phone!.id }],
    ];
    for (const [method, url, body] of steps) {
      const answer = await root.call(method as 'POST' | 'DELETE', url, body);
      expect(answer.statusCode, `${method} ${url}: ${answer.body}`).toBeLessThan(300);
    }
    const kindAndTarget = (rows: Array<{ kind: string; target: string; actor_email: string }>) =>
      rows.map((row) => `${row.kind} ${row.target} ${row.actor_email}`);

    const first = await root.call('GET', '/api/admin/audit?per_page=10');
    expect(first.statusCode).toBe(200);
    expect(first.data.total).toBe(11);
    expect(first.data.rows.map((row: { kind: string }) => row.kind).at(9)).toBe('organization.reactivated');
    expect(kindAndTarget(first.data.rows.slice(0, 9))).toEqual([
      `device.keys_revoked Owen phone ${rootEmail}`,
      `node.undrained accounts-node ${rootEmail}`,
      `device.activated Owen laptop ${rootEmail}`,
      `admin_email.removed ${extra} ${rootEmail}`,
      `node.drained accounts-node ${rootEmail}`,
      `admin_email.added ${extra} ${rootEmail}`,
      `device.suspended Owen laptop ${rootEmail}`,
      `admin_email.removed ${noraEmail} ${rootEmail}`,
      `admin_email.added ${noraEmail} ${rootEmail}`,
    ]);
    expect(first.data.rows[0].details).toMatchObject({ device_id: phone!.id, changed: true });
    expect(first.data.next).toEqual(expect.any(String));

    const second = await root.call('GET', `/api/admin/audit?per_page=10&before=${encodeURIComponent(first.data.next)}`);
    expect(second.statusCode).toBe(200);
    expect(second.data).toMatchObject({ total: 11, next: null });
    expect(second.data.rows.map((row: { kind: string }) => row.kind)).toEqual(['organization.suspended']);
  });

  it('refuses a cursor that is not one, changing nothing', async () => {
    for (const before of ['yesterday', '2026-11-23T17:00:00.000Z', `2026-11-23T17:00:00Z_${randomUUID()}`]) {
      const answer = await root.call('GET', `/api/admin/audit?before=${encodeURIComponent(before)}`);
      expect(status(answer), before).toEqual({ status: 400, code: 'validation_failed' });
    }
  });
});

describe('refusals', () => {
  const requestFor = (route: HttpRoute): { url: string; body?: unknown } => {
    const url = route.url.replace(':id', orgId).replace(':email', encodeURIComponent(rootEmail));
    if (route.method === 'POST' && route.url.endsWith('admin-emails'))
      return { url, body: { email: 'intruder@example.com' } };
    if (route.url.endsWith('/suspend')) return { url, body: { reason: 'Intruder.' } };
    return { url };
  };

  it('anyone but a platform admin, a forged x-admin-email header included, is refused on every route', async () => {
    const auditBefore = (await root.call('GET', '/api/admin/audit')).data.total;
    const forged = { 'x-admin-email': rootEmail };
    for (const route of adminAccountRoutes) {
      const { url, body } = requestFor(route);
      const method = route.method as 'GET' | 'POST' | 'DELETE';
      const key = `${route.method} ${route.url}`;
      expect(status(await new Client(stack.app).call(method, url, body)), `anonymous ${key}`).toEqual({
        status: 401,
        code: 'not_signed_in',
      });
      expect(status(await new Client(stack.app).call(method, url, body, forged)), `anonymous forged ${key}`).toEqual({
        status: 401,
        code: 'not_signed_in',
      });
      for (const [who, client] of [
        ['personal', pia],
        ['business owner', owen],
        ['unverified admin', late],
      ] as const) {
        expect(status(await client.call(method, url, body)), `${who} ${key}`).toEqual({
          status: 403,
          code: 'forbidden',
        });
        expect(status(await client.call(method, url, body, forged)), `${who} forged ${key}`).toEqual({
          status: 403,
          code: 'forbidden',
        });
      }
    }
    // Nothing changed.
    expect((await root.call('GET', '/api/admin/audit')).data.total).toBe(auditBefore);
    expect(await organizationStatus(owen, orgId)).toBe('Active');
    const list = await root.call('GET', '/api/admin/admin-emails');
    expect(list.data.emails.map((e: { email: string }) => e.email)).not.toContain('intruder@example.com');
  });

  it('an admin whose address is not verified is no admin: the token says so, and identity refuses a forged assertion', async () => {
    // Listed in ADMIN_EMAILS, signed up, never confirmed.
    expect((await refresh(late)).data.user).toMatchObject({ is_admin: false, email_verified: false });
    const lateId = await userIdOf(late);
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    const rpc = new RpcClient(stack.bus);
    const ask = (caller: { userId: string; isAdmin: boolean; emailVerified: boolean }) =>
      rpc.request(adminUsersRpc, {}, sign({ ...caller, accountType: 'personal' })).then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      );
    // An assertion that claims admin for an unverified address, or for a person the list does not name.
    expect(await ask({ userId: lateId, isAdmin: true, emailVerified: false })).toBe('forbidden');
    expect(await ask({ userId: lateId, isAdmin: true, emailVerified: true })).toBe('forbidden');
    expect(await ask({ userId: piaId, isAdmin: true, emailVerified: true })).toBe('forbidden');
    expect(await ask({ userId: rootId, isAdmin: true, emailVerified: true })).toBe('answered');
  });
});
