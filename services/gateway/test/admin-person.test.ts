import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { adminRefundLatestRpc, refundIssued } from '@qw/contracts';
import { identityService } from '@qw/identity';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import { eventually, launchService, testCallerKeys } from '@qw/testkit';
import { Client, confirmEmail, signUp, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { organizationEventsHandled, ownOrganization, userIdOf } from './support/organizations.ts';
import { consumerHolds } from './support/held-consumers.ts';
import { refundAuditConsumer } from '../../identity/src/consumers/refund-audit.consumer.ts';

/**
 * Issue #26, the operator console's page of one person, through the gateway on the real stack
 * (identity, billing, provisioning, telemetry): what it shows from each owner, and every way an
 * attacker would try it (no session, a customer, malformed and unknown ids).
 */
const password = 'correct horse battery';
const rootEmail = 'root@quietwire.test';

let stack: Stack;
const holds = consumerHolds();
let root: Client;
let pia: Client;
let piaId: string;
let owen: Client;
let owenId: string;
let orgId: string;
let una: Client;
let unaId: string;
let addresses = 10;
const address = () => `198.51.100.${addresses++}`;

type Answer = Awaited<ReturnType<Client['call']>>;
const status = (answer: Answer) => ({ status: answer.statusCode, code: answer.data?.error?.code });
const page = (id: string, by = root) => by.call('GET', `/api/admin/users/${id}`);

beforeAll(async () => {
  stack = await startStack({
    label: 'admin-person',
    adminEmails: [rootEmail],
    extra: (url, mail) => deviceServices(url, mail),
  });
  await registerTestNode(stack, 'person-node');
  root = await confirmEmail(stack, rootEmail, password, await signUp(stack, rootEmail, address(), password));
  pia = await confirmEmail(stack, 'pia@example.com', password, await customerWithPlan(stack, 'pia@example.com'));
  piaId = await userIdOf(pia);
  await deviceAdded(pia, { name: 'Pia laptop', platform: 'linux' });
  owen = await confirmEmail(
    stack,
    'owen@example.com',
    password,
    await customerWithPlan(stack, 'owen@example.com', 'business10'),
  );
  owenId = await userIdOf(owen);
  orgId = await ownOrganization(owen);
  await organizationEventsHandled(stack);
  await deviceAdded(owen, { name: 'Owen phone' }, `/api/orgs/${orgId}/devices`);
  una = await signUp(stack, 'una@example.com', address(), password);
  unaId = await userIdOf(una);
}, 180_000);

afterAll(async () => {
  await holds.stopAll();
  await stack?.stop();
});

describe("a person's page", () => {
  it('shows the profile, plan, invoices, devices and sessions of a personal customer', async () => {
    const answer = await page(piaId);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const person = answer.data;
    expect(person.profile).toMatchObject({
      id: piaId,
      email: 'pia@example.com',
      email_verified: true,
      account_type: 'personal',
      is_admin: false,
      two_factor: false,
    });
    expect(person.plan).toMatchObject({ code: 'personal', status: 'active' });
    expect(person.invoices).toHaveLength(1);
    expect(person.invoices[0]).toMatchObject({ plan: 'personal', status: 'paid' });
    expect(person.invoices[0].amount_cents).toBeGreaterThan(0);
    expect(person.devices).toEqual([
      expect.objectContaining({ name: 'Pia laptop', status: 'active', server: 'person-node', organization_id: null }),
    ]);
    // No key, address or network on the page.
    expect(Object.keys(person.devices[0]).sort()).toEqual(
      ['created_at', 'id', 'last_handshake_at', 'name', 'organization_id', 'platform', 'server', 'status'].sort(),
    );
    expect(person.sessions.active).toBeGreaterThanOrEqual(1);
    expect(Date.parse(person.sessions.last_used_at)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(person.organizations).toEqual([]);
  });

  it("shows a team lead's organization with their role, its devices and the organization's audit about them", async () => {
    const person = (await page(owenId)).data;
    expect(person.profile).toMatchObject({ id: owenId, account_type: 'business' });
    // The organization's plan is not a personal one.
    expect(person.plan).toBeNull();
    expect(person.organizations).toEqual([expect.objectContaining({ id: orgId, role: 'owner' })]);
    expect(person.devices).toEqual([expect.objectContaining({ name: 'Owen phone', organization_id: orgId })]);
    const kinds = person.activity.map((entry: { kind: string }) => entry.kind);
    expect(kinds).toContain('member.joined');
    expect(kinds).toContain('device.added');
    expect(person.activity[0].organization).toMatchObject({ id: orgId });
  });

  it('shows an unconfirmed address as such, with no plan, device or invoice', async () => {
    const person = (await page(unaId)).data;
    expect(person.profile).toMatchObject({ email: 'una@example.com', email_verified: false, email_verified_at: null });
    expect(person).toMatchObject({ plan: null, devices: [], invoices: [], organizations: [] });
  });

  it('answers an id in capitals as the same person', async () => {
    expect((await page(piaId.toUpperCase())).data.profile.id).toBe(piaId);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', `${piaId}x`, '%27%20or%201%3D1', 'x'.repeat(64)])
      expect(status(await page(id)), id).toEqual({ status: 404, code: 'not_found' });
    expect((await page('x'.repeat(65))).statusCode).toBe(400);
  });

  it('refuses anyone but a platform admin, whatever they send', async () => {
    expect(status(await page(piaId, pia))).toEqual({ status: 403, code: 'forbidden' });
    // Even their own page, and even naming an admin's address in the spec's header.
    expect(
      status(await pia.call('GET', `/api/admin/users/${piaId}`, undefined, { 'x-admin-email': rootEmail })),
    ).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(status(await page(owenId, una))).toEqual({ status: 403, code: 'forbidden' });
    expect((await page(piaId, new Client(stack.app))).statusCode).toBe(401);
  });
});

describe('ending every session of a person', () => {
  it('ends them all: their access token stops within a second or so, their refresh token at once; audited', async () => {
    const ed = await signUp(stack, 'ed@example.com', address(), password);
    const edId = await userIdOf(ed);
    expect((await ed.call('GET', '/api/me')).statusCode).toBe(200);
    // Refused to anyone but an admin, and for nobody.
    expect(status(await pia.call('POST', `/api/admin/users/${edId}/end-sessions`))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(status(await root.call('POST', `/api/admin/users/${randomUUID()}/end-sessions`))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(status(await root.call('POST', '/api/admin/users/nobody/end-sessions'))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect((await ed.call('GET', '/api/me')).statusCode).toBe(200);
    const ended = await root.call('POST', `/api/admin/users/${edId}/end-sessions`);
    expect(ended.statusCode).toBe(200);
    expect(ended.data).toEqual({ ended: 1 });
    const at = Date.now();
    await eventually(async () => (await ed.call('GET', '/api/me')).statusCode === 401 || undefined, 5_000, 100);
    // The authority cache's second, with room for this machine's load.
    expect(Date.now() - at).toBeLessThan(5_000);
    ed.accessToken = undefined;
    expect((await ed.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
    const person = (await page(edId)).data;
    expect(person.sessions.active).toBe(0);
    expect(person.operator_actions[0]).toMatchObject({
      kind: 'user.sessions_ended',
      actor_email: rootEmail,
      target: 'ed@example.com',
      details: { user_id: edId, sessions: 1 },
    });
    // Nothing of it reaches another person.
    expect((await owen.call('GET', '/api/me')).statusCode).toBe(200);
  });
});

describe('sending the verification mail again', () => {
  it('mails a new link to an unconfirmed address, which confirms it; audited', async () => {
    const before = stack.smtp.messages.filter((m) => m.subject === 'Confirm your email for Quietwire').length;
    expect(status(await una.call('POST', `/api/admin/users/${unaId}/resend-verification`))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    const sent = await root.call('POST', `/api/admin/users/${unaId}/resend-verification`);
    expect(sent.statusCode).toBe(200);
    expect(sent.data).toEqual({ sent_to: 'una@example.com' });
    await eventually(
      () =>
        stack.smtp.messages.filter((m) => m.subject === 'Confirm your email for Quietwire').length > before ||
        undefined,
      10_000,
      100,
    );
    expect((await page(unaId)).data.operator_actions[0]).toMatchObject({
      kind: 'user.verification_sent',
      details: { user_id: unaId },
    });
  });

  it('answers 409 for a confirmed address and 404 for nobody, sending nothing', async () => {
    const refused = await root.call('POST', `/api/admin/users/${piaId}/resend-verification`);
    expect(status(refused)).toEqual({ status: 409, code: 'conflict' });
    expect(refused.data.error.message).toBe('This address is already confirmed: there is nothing to verify.');
    expect(status(await root.call('POST', `/api/admin/users/${randomUUID()}/resend-verification`))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('refunding the latest payment', () => {
  it('refuses anyone but an admin, nobody, and a person with nothing to refund (409, a reason)', async () => {
    expect(status(await pia.call('POST', `/api/admin/users/${piaId}/refund-latest`))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(status(await root.call('POST', `/api/admin/users/${randomUUID()}/refund-latest`))).toEqual({
      status: 404,
      code: 'not_found',
    });
    const none = await root.call('POST', `/api/admin/users/${unaId}/refund-latest`);
    expect(status(none)).toEqual({ status: 409, code: 'conflict' });
    expect(none.data.error.message).toBe('Nothing to refund: this person has no plan of their own running.');
    // An organization's plan is the organization's, not its owner's.
    expect(status(await root.call('POST', `/api/admin/users/${owenId}/refund-latest`))).toEqual({
      status: 409,
      code: 'conflict',
    });
  });

  it('refunds a payment within the 7 days in full, ends the plan, mails the refund and records it; once', async () => {
    const mailsBefore = stack.smtp.messages.length;
    // The audit line comes from billing's refund event (identity's consumer), held back here for
    // 300 ms: the refund's answer waits until identity shows the line (read-your-writes), so the
    // page read right after it lists the refund however slow the bus is.
    const { releasing } = await holds.holdBriefly(stack.services.identity!, [refundAuditConsumer]);
    const refunded = await root.call('POST', `/api/admin/users/${piaId}/refund-latest`);
    await releasing;
    expect(refunded.statusCode).toBe(200);
    const person = (await page(piaId)).data;
    const invoice = person.invoices[0];
    expect(refunded.data).toEqual({
      refunded_cents: invoice.amount_cents,
      currency: invoice.currency,
      plan: 'personal',
    });
    expect(person.plan).toBeNull();
    const audited = person.operator_actions as Array<{ kind: string }>;
    expect(audited[0]).toMatchObject({
      kind: 'user.refunded',
      target: 'pia@example.com',
      actor_email: rootEmail,
      details: { user_id: piaId, amount_cents: invoice.amount_cents, plan: 'personal' },
    });
    expect(audited.filter((a) => a.kind === 'user.refunded')).toHaveLength(1);
    // The refund mail goes to the person as for any refund.
    await eventually(
      () =>
        stack.smtp.messages
          .slice(mailsBefore)
          .some(
            (m) =>
              (m.to as { text: string } | undefined)?.text.includes('pia@example.com') === true &&
              /refund/i.test(`${m.subject} ${m.text}`),
          ) || undefined,
      15_000,
      100,
    );
    const again = await root.call('POST', `/api/admin/users/${piaId}/refund-latest`);
    expect(status(again)).toEqual({ status: 409, code: 'conflict' });
  });
});

describe('the refund audit is lossless', () => {
  it('records the audit line once identity is back when it was down at refund time, and never twice', async () => {
    const rex = await confirmEmail(
      stack,
      'rex@example.com',
      password,
      await customerWithPlan(stack, 'rex@example.com'),
    );
    const rexId = await userIdOf(rex);
    const rootId = await userIdOf(root);
    const refundsOf = () =>
      sql<{ id: string; refunded_by: string | null }>`select id, refunded_by from refunds where user_id = ${rexId}`
        .execute(stack.services.billing!.db)
        .then((result) => result.rows);
    const auditLines = () =>
      sql<{ n: number }>`select count(*)::int as n from admin_audit
                          where kind = 'user.refunded' and details->>'user_id' = ${rexId}`
        .execute(stack.services.identity!.db)
        .then((result) => result.rows[0]!.n);

    // Identity is down: the operator's refund (billing's RPC, as the gateway asks it) still goes through.
    await stack.services.identity!.stop();
    const sign = callerTokenSigner(testCallerKeys.privateKey);
    const operator = sign({ userId: rootId, isAdmin: true, emailVerified: true, accountType: 'personal' });
    const refund = await new RpcClient(stack.bus).request(adminRefundLatestRpc, { user_id: rexId }, operator);
    expect(refund.plan).toBe('personal');
    const [recorded] = await refundsOf();
    expect(recorded).toMatchObject({ refunded_by: rootId });

    // Identity comes back: its durable consumer reads the refund event and writes the line.
    stack.services.identity = await launchService(
      identityService({
        PUBLIC_URL: stack.publicUrl,
        SUPPORT_EMAIL: 'support@quietwire.test',
        ADMIN_EMAILS: rootEmail,
        MAIL_URL: stack.smtp.url,
        MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
        MAIL_DIR: 'var/mail-test',
        NODE_ENV: 'test',
      }),
      { database: stack.database, bus: stack.testBus },
    );
    await eventually(async () => (await auditLines()) === 1, 20_000, 100);
    const person = await eventually(async () => {
      const answer = await page(rexId);
      return answer.statusCode === 200 ? answer.data : undefined;
    }, 15_000);
    expect(person.operator_actions.filter((a: { kind: string }) => a.kind === 'user.refunded')).toMatchObject([
      {
        kind: 'user.refunded',
        actor_email: rootEmail,
        target: 'rex@example.com',
        details: { user_id: rexId, refund_id: recorded!.id, amount_cents: refund.refunded_cents, plan: 'personal' },
      },
    ]);

    // The same event delivered again, and the same refund published again as a new event: no second line.
    const admin = await stack.connectAdmin();
    // The refund's event as billing published it: the latest on its subject.
    const subject = admin.ns.subject(refundIssued.subject);
    const stored = await admin.jsm.streams.getMessage(admin.ns.stream('billing'), { last_by_subj: subject });
    const envelope = stored!.json<{ id: string; data: { refundId: string } }>();
    expect(envelope.data.refundId).toBe(recorded!.id);
    await admin.js.publish(subject, JSON.stringify(envelope), { msgID: `${envelope.id}-again` });
    const copy = { ...envelope, id: randomUUID() };
    const last = await admin.js.publish(subject, JSON.stringify(copy), { msgID: copy.id });
    // Both handled (acknowledged) by identity's consumer.
    const durable = admin.ns.durable('identity.audit-refund-issued');
    await eventually(async () => {
      const info = await admin.jsm.consumers.info(admin.ns.stream('billing'), durable);
      return info.ack_floor.stream_seq >= last.seq;
    }, 15_000);
    expect(await auditLines()).toBe(1);
  });
});

describe("suspending a person's account", () => {
  const reason = 'A chargeback on your card is under review.';
  type Listed = { id: string; name: string; is_active: boolean; suspended_by: string | null };
  const devicesOf = async (client: Client, url = '/api/devices') =>
    (await client.call('GET', url)).data.devices as Listed[];

  it('asks a reason, holds every device of theirs off, refuses new ones, shows them why; lifting brings back only what it held', async () => {
    const sue = await confirmEmail(
      stack,
      'sue@example.com',
      password,
      await customerWithPlan(stack, 'sue@example.com'),
    );
    const sueId = await userIdOf(sue);
    const laptop = await deviceAdded(sue, { name: 'Sue laptop', platform: 'linux' });
    const tablet = await deviceAdded(sue, { name: 'Sue tablet', platform: 'android' });
    expect((await sue.call('PATCH', `/api/devices/${tablet.id}`, { is_active: false })).statusCode).toBe(200);

    // Refused, changing nothing: a customer, nobody, no reason, the operator's own account.
    expect(status(await pia.call('POST', `/api/admin/users/${sueId}/suspend`, { reason }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(status(await root.call('POST', `/api/admin/users/${randomUUID()}/suspend`, { reason }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(status(await root.call('POST', '/api/admin/users/nobody/suspend', { reason }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(status(await root.call('POST', `/api/admin/users/${sueId}/suspend`, { reason: '   ' }))).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    const rootId = (await root.call('GET', '/api/me')).data.user.id;
    expect(status(await root.call('POST', `/api/admin/users/${rootId}/suspend`, { reason }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect(status(await root.call('POST', `/api/admin/users/${sueId}/reactivate`))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect((await sue.call('GET', '/api/me')).data.account_suspension).toBeNull();

    const suspended = await root.call('POST', `/api/admin/users/${sueId}/suspend`, { reason: `  ${reason} ` });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.data.suspension).toMatchObject({ reason });
    expect(status(await root.call('POST', `/api/admin/users/${sueId}/suspend`, { reason }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    // The person reads why, in the operator's words; the console's page says so too.
    expect((await sue.call('GET', '/api/me')).data.account_suspension).toMatchObject({ reason });
    expect((await page(sueId)).data.profile.suspension).toMatchObject({ reason });
    // Their device goes off, held by the operator's level; the one they switched off stays theirs.
    await eventually(async () => {
      const listed = await devicesOf(sue);
      return listed.find((d) => d.id === laptop.id)?.is_active === false ? listed : undefined;
    }, 15_000);
    const held = await devicesOf(sue);
    expect(held.find((d) => d.id === laptop.id)).toMatchObject({ is_active: false, suspended_by: 'operator' });
    expect(held.find((d) => d.id === tablet.id)).toMatchObject({ is_active: false, suspended_by: 'person' });
    // Nothing can be added or switched on, and no configuration is handed out.
    expect(status(await sue.call('POST', '/api/devices', { name: 'Sue phone', platform: 'ios' }))).toEqual({
      status: 403,
      code: 'account_suspended',
    });
    expect(status(await sue.call('PATCH', `/api/devices/${laptop.id}`, { is_active: true }))).toEqual({
      status: 403,
      code: 'account_suspended',
    });
    expect(status(await sue.call('PATCH', `/api/devices/${tablet.id}`, { is_active: true }))).toEqual({
      status: 403,
      code: 'account_suspended',
    });
    expect((await sue.call('GET', `/api/device/${laptop.id}/config`)).statusCode).toBe(409);
    expect(await devicesOf(sue)).toHaveLength(2);

    const lifted = await root.call('POST', `/api/admin/users/${sueId}/reactivate`);
    expect(lifted.statusCode).toBe(200);
    expect(lifted.data).toEqual({ suspension: null });
    expect((await sue.call('GET', '/api/me')).data.account_suspension).toBeNull();
    await eventually(async () => {
      const listed = await devicesOf(sue);
      return listed.find((d) => d.id === laptop.id)?.is_active === true ? listed : undefined;
    }, 15_000);
    expect((await devicesOf(sue)).find((d) => d.id === tablet.id)).toMatchObject({
      is_active: false,
      suspended_by: 'person',
    });
    expect((await sue.call('GET', `/api/device/${laptop.id}/config`)).statusCode).toBe(200);
    const actions = (await page(sueId)).data.operator_actions;
    expect(actions.slice(0, 2)).toMatchObject([
      { kind: 'user.reactivated', target: 'sue@example.com', details: { user_id: sueId } },
      { kind: 'user.suspended', target: 'sue@example.com', details: { user_id: sueId, reason } },
    ]);
  });

  it("holds a team lead's organization devices too, and refuses adding one for them", async () => {
    const url = `/api/orgs/${orgId}/devices`;
    expect((await root.call('POST', `/api/admin/users/${owenId}/suspend`, { reason })).statusCode).toBe(200);
    await eventually(async () => {
      const listed = await devicesOf(owen, url);
      return listed.length > 0 && listed.every((d) => !d.is_active) ? listed : undefined;
    }, 15_000);
    expect(status(await owen.call('POST', url, { name: 'Owen tablet', platform: 'android' }))).toEqual({
      status: 403,
      code: 'account_suspended',
    });
    expect((await root.call('POST', `/api/admin/users/${owenId}/reactivate`)).statusCode).toBe(200);
    await eventually(async () => {
      const listed = await devicesOf(owen, url);
      return listed.length > 0 && listed.every((d) => d.is_active) ? listed : undefined;
    }, 15_000);
  });
});
