import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { consumerSettled, eventually } from '@qw/testkit';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { Client, confirmEmail, linkToken, signUp, startStack, type Stack } from './support/stack.ts';

/**
 * Organizations through the gateway, against real identity, billing and provisioning, a NATS
 * server with the product's permissions and an SMTP capture: invitations by mail, roles, the last
 * owner, leaving and removal, list_org_users, the user cap (also with sessions racing), status
 * from the subscription, the organization's billing, and the audit log.
 */
let stack: Stack;
const password = 'correct horse battery';
let addresses = 0;

beforeAll(async () => {
  stack = await startStack({ label: 'orgs', extra: deviceServices });
  await registerTestNode(stack, 'orgs-node');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const identityDb = () => stack.services.identity!.db;

/** A person with an account of their own (not verified), signed in, from an address of their own. */
async function person(email: string): Promise<Client> {
  addresses++;
  return signUp(stack, email, `203.0.113.${addresses}`, password);
}

async function userIdOf(email: string): Promise<string> {
  const row = await identityDb().selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return row.id;
}

/** A business customer and the organization their purchase made. */
async function businessOwner(email: string, plan = 'business10'): Promise<{ owner: Client; orgId: string }> {
  const owner = await customerWithPlan(stack, email, plan, password);
  const orgs = await eventually(async () => {
    const answer = await owner.call('GET', '/api/orgs');
    return answer.data.organizations?.length > 0 ? answer.data.organizations : undefined;
  });
  return { owner, orgId: orgs[0].id };
}

const mailsTo = (email: string) =>
  stack.smtp.messages.filter((m) => (m.to as { text: string } | undefined)?.text === email);

/** The token of the newest invitation mailed to `email` (waits for it). */
async function invitationToken(email: string, nth = 1): Promise<string> {
  const mail = await eventually(() => {
    const mails = mailsTo(email).filter((m) => m.subject?.startsWith('Join '));
    return mails.length >= nth ? mails[nth - 1] : undefined;
  });
  return linkToken(mail.text!, '/invite');
}

async function invite(client: Client, orgId: string, email: string, role: 'admin' | 'member' = 'member') {
  return client.call('POST', `/api/orgs/${orgId}/invitations`, { email, role });
}

/** Invited by `by`, signs up and accepts: a member with that role, signed in. */
async function join(by: Client, orgId: string, email: string, role: 'admin' | 'member' = 'member') {
  const invited = await invite(by, orgId, email, role);
  if (invited.statusCode !== 201) throw new Error(`invite ${email}: ${invited.statusCode} ${invited.body}`);
  const token = await invitationToken(email);
  const client = await person(email);
  const accepted = await client.call('POST', '/api/invitations/accept', { token });
  if (accepted.statusCode !== 200) throw new Error(`accept ${email}: ${accepted.statusCode} ${accepted.body}`);
  return client;
}

async function counts(orgId: string) {
  const members = await sql<{ n: number }>`select count(*)::int as n from org_members where org_id = ${orgId}`.execute(
    identityDb(),
  );
  const open = await sql<{ n: number }>`select count(*)::int as n from invitations where org_id = ${orgId}
      and accepted_at is null and revoked_at is null and expires_at > now()`.execute(identityDb());
  return { members: members.rows[0]!.n, open: open.rows[0]!.n };
}

/** Waits until the newest event identity published on `subject` has the `expected` fields (the relay publishes after commit). */
async function publishedByIdentity(subject: string, expected: Record<string, unknown>): Promise<void> {
  const admin = await stack.connectAdmin();
  await eventually(async () => {
    const message = await admin.jsm.streams.getMessage(admin.ns.stream('identity'), { last_by_subj: subject });
    const data = (message?.json() as { data?: Record<string, unknown> } | undefined)?.data ?? {};
    return Object.entries(expected).every(([key, value]) => JSON.stringify(data[key]) === JSON.stringify(value));
  });
}

async function auditOf(client: Client, orgId: string, query = '') {
  return client.call('GET', `/api/orgs/${orgId}/audit${query}`);
}

describe('invitations by e-mail', () => {
  let owner: Client;
  let orgId: string;
  let orgName: string;

  beforeAll(async () => {
    ({ owner, orgId } = await businessOwner('olivia@example.com'));
    await owner.call('PATCH', '/api/me/profile', { full_name: 'Olivia Owner' });
    orgName = (await owner.call('GET', `/api/orgs/${orgId}`)).data.name;
  });

  it('mails a single-use link; the invited person previews it, signs up, accepts once and is a member with a verified address', async () => {
    const invited = await invite(owner, orgId, ' Ivy@Example.com ');
    expect(invited.statusCode).toBe(201);
    expect(invited.data.invitation).toMatchObject({
      email: 'ivy@example.com',
      role: 'member',
      invited_by: 'Olivia Owner',
    });
    const sevenDays = Date.parse(invited.data.invitation.expires_at) - Date.parse(invited.data.invitation.created_at);
    expect(sevenDays).toBe(7 * 24 * 3600_000);

    const token = await invitationToken('ivy@example.com');
    const mail = mailsTo('ivy@example.com')[0]!;
    expect(mail.subject).toBe(`Join ${orgName} on Quietwire`);
    expect(mail.text).toContain(`${stack.publicUrl}/invite?token=${token}`);
    expect(mail.text).toContain('Olivia Owner invited you to join');
    expect(mail.text).toContain('expires in 7 days');
    // Only the token's hash is kept.
    const stored = await identityDb()
      .selectFrom('invitations')
      .selectAll()
      .where('email', '=', 'ivy@example.com')
      .execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);

    const pending = await owner.call('GET', `/api/orgs/${orgId}/invitations`);
    expect(pending.data.invitations.map((i: { email: string }) => i.email)).toContain('ivy@example.com');

    const anonymous = new Client(stack.app);
    const before = await anonymous.call('POST', '/api/invitations/preview', { token });
    expect(before.statusCode).toBe(200);
    expect(before.data).toEqual({
      organization: orgName,
      email: 'ivy@example.com',
      role: 'member',
      expires_at: invited.data.invitation.expires_at,
      account_exists: false,
    });
    expect((await anonymous.call('POST', '/api/invitations/accept', { token })).statusCode).toBe(401);

    const ivy = await person('ivy@example.com');
    expect((await anonymous.call('POST', '/api/invitations/preview', { token })).data.account_exists).toBe(true);
    expect((await ivy.call('GET', '/api/me')).data).toMatchObject({ org_member: false, email_verified: false });
    expect((await ivy.call('GET', `/api/orgs/${orgId}`)).statusCode).toBe(404);

    const accepted = await ivy.call('POST', '/api/invitations/accept', { token });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.data.organization).toMatchObject({ id: orgId, name: orgName, role: 'member', member_count: 2 });

    const again = await ivy.call('POST', '/api/invitations/accept', { token });
    expect(again.statusCode).toBe(410);
    expect(again.data.error).toEqual({ code: 'link_expired', message: 'This invitation has already been used.' });
    expect((await anonymous.call('POST', '/api/invitations/preview', { token })).statusCode).toBe(410);

    // Spec §6: membership in any organization lands on the business area.
    expect((await ivy.call('GET', '/api/me')).data).toMatchObject({ org_member: true, email_verified: true });
    const detail = await ivy.call('GET', `/api/orgs/${orgId}`);
    expect(detail.data).toMatchObject({ id: orgId, role: 'member', status: 'Active', user_cap: 10, device_cap: 10 });
    expect((await owner.call('GET', `/api/orgs/${orgId}/invitations`)).data.invitations).toEqual([]);
    await publishedByIdentity('identity.org.member-joined', {
      orgId,
      userId: await userIdOf('ivy@example.com'),
      role: 'member',
      actorId: await userIdOf('ivy@example.com'),
    });
  });

  it("signing up from the invitation's page (its token sent along) confirms the address: no verification mail follows", async () => {
    expect((await invite(owner, orgId, 'ines@example.com')).statusCode).toBe(201);
    const token = await invitationToken('ines@example.com');
    addresses++;
    const ines = new Client(stack.app, `203.0.113.${addresses}`);
    const signedUp = await ines.call('POST', '/api/auth/signup', {
      email: 'ines@example.com',
      password,
      invitation_token: token,
    });
    expect(signedUp.statusCode).toBe(201);
    expect(signedUp.data.user.email_verified).toBe(true);
    expect((await ines.call('GET', '/api/me')).data.email_verified).toBe(true);
    await publishedByIdentity('identity.user.verified', { userId: await userIdOf('ines@example.com') });
    expect((await ines.call('POST', '/api/invitations/accept', { token })).statusCode).toBe(200);
    // The tests after this one count the organization's members without her.
    expect((await ines.call('POST', `/api/orgs/${orgId}/leave`)).statusCode).toBe(204);

    // A token of an invitation to someone else, or one already used, proves nothing: the usual mail.
    for (const [email, other] of [
      ['jon@example.com', token],
      ['kai@example.com', 'x'.repeat(43)],
    ] as const) {
      addresses++;
      const client = new Client(stack.app, `203.0.113.${addresses}`);
      const answer = await client.call('POST', '/api/auth/signup', { email, password, invitation_token: other });
      expect(answer.statusCode, email).toBe(201);
      expect(answer.data.user.email_verified, email).toBe(false);
      await eventually(() => mailsTo(email).find((m) => m.subject === 'Confirm your email for Quietwire'));
    }
    // Wait as long as the other sign-ups' mails took: none went to the invited person.
    expect(mailsTo('ines@example.com').filter((m) => m.subject === 'Confirm your email for Quietwire')).toEqual([]);
  });

  it('refuses another account (409), an unknown link (404) and changes nothing', async () => {
    expect((await invite(owner, orgId, 'wes@example.com')).statusCode).toBe(201);
    const token = await invitationToken('wes@example.com');
    const eve = await person('eve@example.com');
    const refused = await eve.call('POST', '/api/invitations/accept', { token });
    expect(refused.statusCode).toBe(409);
    expect(refused.data.error).toEqual({
      code: 'email_mismatch',
      message: 'This invitation was sent to another email address. Sign in with that address to accept it.',
    });
    const unknown = await eve.call('POST', '/api/invitations/accept', { token: 'x'.repeat(43) });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.data.error.code).toBe('not_found');
    expect((await eve.call('GET', '/api/me')).data).toMatchObject({ org_member: false, email_verified: false });
    const invitation = await identityDb()
      .selectFrom('invitations')
      .selectAll()
      .where('email', '=', 'wes@example.com')
      .executeTakeFirstOrThrow();
    expect(invitation.accepted_at).toBeNull();
    // The right person still can.
    const wes = await person('wes@example.com');
    expect((await wes.call('POST', '/api/invitations/accept', { token })).statusCode).toBe(200);
  });

  it('an expired or revoked link no longer works, and is no longer pending or counted', async () => {
    expect((await invite(owner, orgId, 'exa@example.com')).statusCode).toBe(201);
    const expiredToken = await invitationToken('exa@example.com');
    await identityDb()
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', 'exa@example.com')
      .execute();
    const exa = await person('exa@example.com');
    const expired = await exa.call('POST', '/api/invitations/accept', { token: expiredToken });
    expect(expired.statusCode).toBe(410);
    expect(expired.data.error.message).toBe(
      'This invitation has expired. Ask the person who invited you for a new one.',
    );
    expect(
      (await new Client(stack.app).call('POST', '/api/invitations/preview', { token: expiredToken })).statusCode,
    ).toBe(410);

    const revokable = await invite(owner, orgId, 'rev@example.com', 'admin');
    const revokedToken = await invitationToken('rev@example.com');
    const pending = await owner.call('GET', `/api/orgs/${orgId}/invitations`);
    expect(pending.data.invitations.map((i: { email: string }) => i.email)).toEqual(['rev@example.com']);
    const id = revokable.data.invitation.id;
    expect((await owner.call('DELETE', `/api/orgs/${orgId}/invitations/${id}`)).statusCode).toBe(204);
    expect((await owner.call('DELETE', `/api/orgs/${orgId}/invitations/${id}`)).statusCode).toBe(204);
    expect((await owner.call('DELETE', `/api/orgs/${orgId}/invitations/${randomUUID()}`)).statusCode).toBe(404);
    const rev = await person('rev@example.com');
    const revoked = await rev.call('POST', '/api/invitations/accept', { token: revokedToken });
    expect(revoked.statusCode).toBe(410);
    expect(revoked.data.error.message).toBe(
      'This invitation has been revoked. Ask the person who invited you for a new one.',
    );
    expect((await owner.call('GET', `/api/orgs/${orgId}/invitations`)).data.invitations).toEqual([]);
    expect(await counts(orgId)).toEqual({ members: 3, open: 0 });
    // An accepted one cannot be revoked: the person is a member now.
    const accepted = await identityDb()
      .selectFrom('invitations')
      .select('id')
      .where('email', '=', 'ivy@example.com')
      .executeTakeFirstOrThrow();
    const late = await owner.call('DELETE', `/api/orgs/${orgId}/invitations/${accepted.id}`);
    expect(late.statusCode).toBe(409);
  });

  it('refuses inviting a member, an address with an open invitation, or no address at all', async () => {
    const member = await invite(owner, orgId, 'ivy@example.com');
    expect(member.statusCode).toBe(409);
    expect(member.data.error).toMatchObject({
      code: 'already_exists',
      message: 'This person is already a member of the organization.',
    });
    expect((await invite(owner, orgId, 'twice@example.com')).statusCode).toBe(201);
    const twice = await invite(owner, orgId, 'twice@example.com');
    expect(twice.statusCode).toBe(409);
    expect(twice.data.error.message).toBe('An invitation to this address is still open. Revoke it to send a new one.');
    const bad = await invite(owner, orgId, 'not an address');
    expect(bad.statusCode).toBe(400);
    expect(bad.data.error).toMatchObject({ code: 'validation_failed', message: 'Enter a valid email address.' });
  });
});

describe('roles, removal, leaving and the users list', () => {
  let owner: Client;
  let admin: Client;
  let member: Client;
  let stranger: Client;
  let orgId: string;
  const ids = {} as Record<'owner' | 'admin' | 'member', string>;

  beforeAll(async () => {
    ({ owner, orgId } = await businessOwner('oscar@example.com'));
    admin = await join(owner, orgId, 'alma@example.com', 'admin');
    member = await join(owner, orgId, 'milo@example.com');
    await member.call('PATCH', '/api/me/profile', { full_name: 'Milo Member' });
    stranger = await customerWithPlan(stack, 'sam@example.com', 'personal', password);
    ids.owner = await userIdOf('oscar@example.com');
    ids.admin = await userIdOf('alma@example.com');
    ids.member = await userIdOf('milo@example.com');
  });

  const role = (client: Client, userId: string, next: string) =>
    client.call('PATCH', `/api/orgs/${orgId}/users/${userId}`, { role: next });

  it('list_org_users: user_id, full_name, email and role for owners and admins; 403 for members; 404 for others', async () => {
    for (const client of [owner, admin]) {
      const answer = await client.call('GET', `/api/orgs/${orgId}/users`);
      expect(answer.statusCode).toBe(200);
      expect(answer.data.users).toEqual([
        { user_id: ids.owner, full_name: null, email: 'oscar@example.com', role: 'owner' },
        { user_id: ids.admin, full_name: null, email: 'alma@example.com', role: 'admin' },
        { user_id: ids.member, full_name: 'Milo Member', email: 'milo@example.com', role: 'member' },
      ]);
    }
    const refused = await member.call('GET', `/api/orgs/${orgId}/users`);
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'forbidden',
      message: "Only owners and admins can see the organization's users.",
    });
    for (const url of [
      `/api/orgs/${orgId}/users`,
      `/api/orgs/${orgId}`,
      `/api/orgs/${randomUUID()}`,
      '/api/orgs/nope',
    ]) {
      const hidden = await stranger.call('GET', url);
      expect(hidden.statusCode, url).toBe(404);
      expect(hidden.data.error).toEqual({ code: 'not_found', message: 'Organization not found.' });
    }
    expect((await new Client(stack.app).call('GET', `/api/orgs/${orgId}/users`)).statusCode).toBe(401);
  });

  it('owners and admins change roles; only an owner makes or unmakes owners; a member may not', async () => {
    const byMember = await role(member, ids.member, 'admin');
    expect(byMember.statusCode).toBe(403);
    expect(byMember.data.error.message).toBe('Only owners and admins can change roles.');
    expect((await role(stranger, ids.member, 'admin')).statusCode).toBe(404);

    const promoted = await role(admin, ids.member, 'admin');
    expect(promoted.statusCode).toBe(200);
    expect(promoted.data.user).toMatchObject({ user_id: ids.member, role: 'admin' });
    await publishedByIdentity('identity.org.member-role-changed', {
      orgId,
      userId: ids.member,
      role: 'admin',
      previousRole: 'member',
      actorId: ids.admin,
    });
    expect((await role(admin, ids.member, 'member')).data.user.role).toBe('member');

    const notOwner = await role(admin, ids.member, 'owner');
    expect(notOwner.statusCode).toBe(403);
    expect(notOwner.data.error.message).toBe('Only an owner can make or unmake owners.');
    expect((await role(admin, ids.owner, 'admin')).statusCode).toBe(403);

    const lastOwner = await role(owner, ids.owner, 'admin');
    expect(lastOwner.statusCode).toBe(409);
    expect(lastOwner.data.error).toEqual({
      code: 'conflict',
      message: 'The last owner cannot be demoted. Make someone else an owner first.',
    });
    expect((await role(owner, randomUUID(), 'admin')).data.error.message).toBe(
      'This person is not a member of the organization.',
    );

    // With a second owner, an owner may step down; the new owner hands it back.
    expect((await role(owner, ids.admin, 'owner')).statusCode).toBe(200);
    expect((await role(owner, ids.owner, 'admin')).statusCode).toBe(200);
    expect((await role(admin, ids.owner, 'owner')).statusCode).toBe(200);
    expect((await role(owner, ids.admin, 'admin')).statusCode).toBe(200);
    const roles = await identityDb()
      .selectFrom('org_members')
      .select(['user_id', 'role'])
      .where('org_id', '=', orgId)
      .execute();
    expect(Object.fromEntries(roles.map((r) => [r.user_id, r.role]))).toEqual({
      [ids.owner]: 'owner',
      [ids.admin]: 'admin',
      [ids.member]: 'member',
    });
  });

  it('removal: owners and admins remove members, only an owner removes an owner, never the last; a member may not', async () => {
    const spare = await join(owner, orgId, 'spare@example.com');
    const spareId = await userIdOf('spare@example.com');
    const byMember = await member.call('DELETE', `/api/orgs/${orgId}/users/${spareId}`);
    expect(byMember.statusCode).toBe(403);
    expect(byMember.data.error.message).toBe('Only owners and admins can remove members.');
    expect((await admin.call('DELETE', `/api/orgs/${orgId}/users/${ids.owner}`)).data.error.message).toBe(
      'Only an owner can remove an owner.',
    );
    const last = await owner.call('DELETE', `/api/orgs/${orgId}/users/${ids.owner}`);
    expect(last.statusCode).toBe(409);
    expect(last.data.error.message).toBe('You are the last owner. Make someone else an owner before you leave.');

    expect((await admin.call('DELETE', `/api/orgs/${orgId}/users/${spareId}`)).statusCode).toBe(204);
    await publishedByIdentity('identity.org.member-left', {
      orgId,
      userId: spareId,
      actorId: ids.admin,
      reason: 'removed',
    });
    expect((await spare.call('GET', `/api/orgs/${orgId}`)).statusCode).toBe(404);
    expect((await spare.call('GET', '/api/me')).data.org_member).toBe(false);
    expect((await admin.call('DELETE', `/api/orgs/${orgId}/users/${spareId}`)).statusCode).toBe(404);
  });

  it('a member leaves; the last owner cannot', async () => {
    const leaver = await join(owner, orgId, 'leo@example.com');
    const leoId = await userIdOf('leo@example.com');
    expect((await leaver.call('POST', `/api/orgs/${orgId}/leave`)).statusCode).toBe(204);
    await publishedByIdentity('identity.org.member-left', {
      orgId,
      userId: leoId,
      actorId: leoId,
      reason: 'left',
    });
    expect((await leaver.call('POST', `/api/orgs/${orgId}/leave`)).statusCode).toBe(404);
    const last = await owner.call('POST', `/api/orgs/${orgId}/leave`);
    expect(last.statusCode).toBe(409);
    expect(last.data.error).toEqual({
      code: 'conflict',
      message: 'You are the last owner. Make someone else an owner before you leave.',
    });
    expect((await stranger.call('POST', `/api/orgs/${orgId}/leave`)).statusCode).toBe(404);
  });

  it('rename: owners and admins, 1 to 100 characters; a member may not', async () => {
    const renamed = await admin.call('PATCH', `/api/orgs/${orgId}`, { name: '  Acme   Labs ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.data).toMatchObject({ id: orgId, name: 'Acme Labs', role: 'admin', status: 'Active' });
    expect((await member.call('PATCH', `/api/orgs/${orgId}`, { name: 'Mine' })).statusCode).toBe(403);
    expect((await stranger.call('PATCH', `/api/orgs/${orgId}`, { name: 'Mine' })).statusCode).toBe(404);
    for (const name of ['   ', 'x'.repeat(101)]) {
      const bad = await owner.call('PATCH', `/api/orgs/${orgId}`, { name });
      expect(bad.statusCode).toBe(400);
      expect(bad.data.error.code).toBe('validation_failed');
    }
    expect((await member.call('GET', `/api/orgs/${orgId}`)).data.name).toBe('Acme Labs');
  });

  it("billing: owners and admins see the organization's plan and invoices, owners alone manage it; a member 403; a stranger 404", async () => {
    for (const client of [owner, admin]) {
      const billing = await client.call('GET', `/api/billing?org_id=${orgId}`);
      expect(billing.statusCode).toBe(200);
      expect(billing.data.subscription).toMatchObject({ plan: 'business10', status: 'active', org_id: orgId });
      expect(billing.data.invoices).toHaveLength(1);
    }
    const manage = (client: Client) =>
      client.call('GET', `/api/billing/manage?org_id=${orgId}&return=/app/business/billing`);
    expect((await manage(owner)).statusCode).toBe(200);
    expect((await manage(admin)).statusCode).toBe(403);
    const forMember = await member.call('GET', `/api/billing?org_id=${orgId}`);
    expect(forMember.statusCode).toBe(403);
    expect(forMember.data.error).toEqual({
      code: 'forbidden',
      message: 'Only owners and admins of the organization see its plan and invoices.',
    });
    expect((await member.call('GET', `/api/billing/manage?org_id=${orgId}`)).statusCode).toBe(403);
    const forStranger = await stranger.call('GET', `/api/billing?org_id=${orgId}`);
    expect(forStranger.statusCode).toBe(404);
    expect(forStranger.data.error).toEqual({ code: 'not_found', message: 'Organization not found.' });
    expect((await stranger.call('GET', `/api/billing/manage?org_id=${orgId}`)).statusCode).toBe(404);
    // Their own billing is unchanged.
    expect((await stranger.call('GET', '/api/billing')).data.subscription).toMatchObject({ plan: 'personal' });
  });

  it('the audit log: each step with actor, target and time, by kind and person, paged; owners and admins only', async () => {
    const all = await auditOf(owner, orgId, '?limit=100');
    expect(all.statusCode).toBe(200);
    const kinds = all.data.entries.map((e: { kind: string }) => e.kind);
    for (const kind of ['member.joined', 'member.invited', 'member.role_changed', 'member.removed', 'member.left'])
      expect(kinds).toContain(kind);
    const times = all.data.entries.map((e: { at: string }) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const removed = all.data.entries.find((e: { kind: string }) => e.kind === 'member.removed');
    expect(removed).toMatchObject({
      actor: { user_id: ids.admin, name: 'alma@example.com' },
      target: { kind: 'user', id: await userIdOf('spare@example.com'), name: 'spare@example.com' },
      details: { role: 'member' },
    });
    expect(Date.now() - Date.parse(removed.at)).toBeLessThan(120_000);
    const firstJoin = all.data.entries.at(-1);
    expect(firstJoin).toMatchObject({
      kind: 'member.joined',
      actor: { user_id: ids.owner },
      target: { kind: 'user', id: ids.owner },
      details: { role: 'owner', via: 'purchase' },
    });
    // Newest first: the first promotion to admin is the last such entry.
    const promoted = all.data.entries
      .filter(
        (e: { kind: string; details: { to?: string } }) => e.kind === 'member.role_changed' && e.details.to === 'admin',
      )
      .at(-1);
    expect(promoted).toMatchObject({
      actor: { user_id: ids.admin },
      target: { id: ids.member, name: 'Milo Member' },
      details: { from: 'member', to: 'admin' },
    });
    expect(JSON.stringify(all.data)).not.toMatch(/203\.0\.113|198\.18|198\.51/);

    const joins = await auditOf(admin, orgId, '?kind=member.joined');
    expect(joins.data.entries.length).toBeGreaterThan(1);
    expect(joins.data.entries.every((e: { kind: string }) => e.kind === 'member.joined')).toBe(true);
    const aboutMilo = await auditOf(owner, orgId, `?person=${ids.member}&limit=100`);
    expect(aboutMilo.data.entries.length).toBeGreaterThan(0);
    for (const entry of aboutMilo.data.entries) expect([entry.actor?.user_id, entry.target?.id]).toContain(ids.member);

    const pages: string[] = [];
    let next: string | null = null;
    do {
      const page = await auditOf(owner, orgId, `?limit=3${next ? `&before=${next}` : ''}`);
      expect(page.statusCode).toBe(200);
      expect(page.data.entries.length).toBeLessThanOrEqual(3);
      pages.push(...page.data.entries.map((e: { id: string }) => e.id));
      next = page.data.next;
    } while (next);
    expect(pages).toEqual(all.data.entries.map((e: { id: string }) => e.id));

    expect((await auditOf(member, orgId)).statusCode).toBe(403);
    expect((await auditOf(stranger, orgId)).statusCode).toBe(404);
    expect((await auditOf(owner, orgId, '?kind=nothing.like.this')).statusCode).toBe(400);
    expect((await auditOf(owner, orgId, '?before=garbage')).statusCode).toBe(400);
    expect((await auditOf(owner, orgId, '?person=nope')).statusCode).toBe(400);
  });

  it("gathers the organization's device changes from provisioning's events, with the actor and the device's name", async () => {
    // Real devices: the admin adds one for Milo, Milo renames it, the owner suspends and activates
    // it, Milo asks for a new key, the admin removes it.
    const created = await admin.call('POST', `/api/orgs/${orgId}/devices`, {
      name: 'Milo laptop',
      assignee_id: ids.member,
    });
    expect(created.statusCode).toBe(201);
    const deviceId = created.data.device.id;
    const steps = [
      await member.call('PATCH', `/api/devices/${deviceId}`, { name: 'Milo work' }),
      await owner.call('PATCH', `/api/devices/${deviceId}`, { is_active: false }),
      await owner.call('PATCH', `/api/devices/${deviceId}`, { is_active: true }),
      await member.call('POST', `/api/devices/${deviceId}/key`, {}),
      await admin.call('DELETE', `/api/devices/${deviceId}`),
    ];
    expect(steps.map((step) => step.statusCode)).toEqual([200, 200, 200, 200, 204]);
    // A personal device is nobody's organization's business: Milo buys a personal plan and adds one.
    const checkout = await member.call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    await new Client(stack.app).call('POST', `/api/billing/test-checkout/${checkout.data.session_id}/pay`, {
      email: 'milo@example.com',
      card_number: '4242424242424242',
    });
    const claimed = await member.call('POST', '/api/checkout/claim', {
      session_id: checkout.data.session_id,
      email: 'milo@example.com',
    });
    expect(claimed.statusCode).toBe(200);
    const home = await member.call('POST', '/api/devices', { name: 'Home', platform: 'ios' });
    expect(home.statusCode).toBe(201);

    const entries = await eventually(async () => {
      const page = await auditOf(owner, orgId, `?person=${ids.member}&limit=100`);
      const devices = page.data.entries.filter((e: { target: { kind: string } | null }) => e.target?.kind === 'device');
      return devices.length >= 6 ? devices : undefined;
    });
    expect(entries.map((e: { kind: string }) => e.kind).sort()).toEqual(
      [
        'device.added',
        'device.renamed',
        'device.suspended',
        'device.activated',
        'device.key_rotated',
        'device.removed',
      ].sort(),
    );
    const byKind = Object.fromEntries(entries.map((e: { kind: string }) => [e.kind, e]));
    expect(byKind['device.added']).toMatchObject({
      actor: { user_id: ids.admin },
      target: { kind: 'device', id: deviceId, name: 'Milo laptop' },
      details: { assignee: { user_id: ids.member, name: 'Milo Member' }, platform: 'linux' },
    });
    expect(byKind['device.renamed']).toMatchObject({ actor: { user_id: ids.member } });
    expect(byKind['device.removed']).toMatchObject({ actor: { user_id: ids.admin } });
    expect(byKind['device.removed'].target.name).toBe('Milo work');
    // Switched off by a manager of the organization, not by its own person ('owner' in provisioning's words).
    expect(byKind['device.suspended']).toMatchObject({ actor: { user_id: ids.owner }, details: { reason: 'manager' } });
    expect(byKind['device.key_rotated']).toMatchObject({ actor: { user_id: ids.member } });
    // Every event of provisioning's published, and identity's consumer of new devices done with them.
    await eventually(
      async () =>
        (await sql<{ n: number }>`select count(*)::int as n from outbox`.execute(stack.services.provisioning!.db))
          .rows[0]!.n === 0,
    );
    const bus = await stack.connectAdmin();
    await eventually(() => consumerSettled(bus, 'provisioning', 'identity.audit-device-created'));
    const homes = await sql<{ n: number }>`select count(*)::int as n from audit_log where target_name = 'Home'`.execute(
      identityDb(),
    );
    expect(homes.rows[0]!.n).toBe(0);
  });
});

describe('the user cap, the subscription and the status', () => {
  let owner: Client;
  let admin: Client;
  let orgId: string;

  it('Business 50 ends (Suspended), is paid again as Business 10 (Active), and the cap of 10 holds on invite and on accept', async () => {
    ({ owner, orgId } = await businessOwner('cora@example.com', 'business50'));
    owner = await confirmEmail(stack, 'cora@example.com', password, owner);
    admin = await join(owner, orgId, 'cap-admin@example.com', 'admin');
    for (let n = 1; n <= 7; n++) await join(owner, orgId, `cap${n}@example.com`);
    expect((await invite(owner, orgId, 'pia.cap@example.com')).statusCode).toBe(201);
    expect((await invite(admin, orgId, 'quinn.cap@example.com')).statusCode).toBe(201);
    expect(await counts(orgId)).toEqual({ members: 9, open: 2 });

    // The plan ends: cancelled within 7 days, refunded and over at once.
    const billing = await owner.call('GET', `/api/billing?org_id=${orgId}`);
    const canceled = await owner.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: billing.data.subscription.id,
    });
    expect(canceled.data.status).toBe('canceled');
    await eventually(async () => (await owner.call('GET', `/api/orgs/${orgId}`)).data.status === 'Suspended');
    expect((await admin.call('GET', '/api/orgs')).data.organizations[0]).toMatchObject({ is_active: false });
    await publishedByIdentity('identity.org.status-changed', {
      orgId,
      isActive: false,
      plan: 'business50',
    });

    // Paid again, for the same organization, on a smaller plan.
    const checkout = await owner.call('POST', '/api/checkout', { plan_code: 'business10', quantity: 1 });
    await new Client(stack.app).call('POST', `/api/billing/test-checkout/${checkout.data.session_id}/pay`, {
      email: 'cora@example.com',
      card_number: '4242424242424242',
    });
    // An admin (whose address the invitation confirmed) may not buy a plan for it.
    const adminCheckout = await admin.call('POST', '/api/checkout', { plan_code: 'business10', quantity: 1 });
    await new Client(stack.app).call('POST', `/api/billing/test-checkout/${adminCheckout.data.session_id}/pay`, {
      email: 'cap-admin@example.com',
      card_number: '4242424242424242',
    });
    const byAdmin = await admin.call('POST', '/api/checkout/claim', {
      session_id: adminCheckout.data.session_id,
      email: 'cap-admin@example.com',
      org_id: orgId,
    });
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.data.error.message).toBe('Only an owner of the organization can add a plan to it.');
    const claimed = await owner.call('POST', '/api/checkout/claim', {
      session_id: checkout.data.session_id,
      email: 'cora@example.com',
      org_id: orgId,
    });
    expect(claimed.statusCode).toBe(200);
    expect(claimed.data).toMatchObject({ org_id: orgId, account_type: 'business' });
    const detail = await eventually(async () => {
      const answer = await owner.call('GET', `/api/orgs/${orgId}`);
      return answer.data.status === 'Active' ? answer.data : undefined;
    });
    expect(detail).toMatchObject({ plan: 'business10', user_cap: 10, member_count: 9 });
    await publishedByIdentity('identity.org.status-changed', {
      orgId,
      isActive: true,
      plan: 'business10',
    });
    expect((await owner.call('GET', '/api/orgs')).data.organizations).toHaveLength(1);

    // 9 members and 2 open invitations: 11 counted against 10.
    const pastCap = await invite(owner, orgId, 'rosa.cap@example.com');
    expect(pastCap.statusCode).toBe(409);
    expect(pastCap.data.error).toMatchObject({
      code: 'quota_exceeded',
      message:
        'Business 10 allows 10 users, counting open invitations. Revoke an invitation, remove a member or choose a bigger plan.',
    });
    const pia = await person('pia.cap@example.com');
    const piaToken = await invitationToken('pia.cap@example.com');
    const full = await pia.call('POST', '/api/invitations/accept', { token: piaToken });
    expect(full.statusCode).toBe(409);
    expect(full.data.error).toMatchObject({
      code: 'quota_exceeded',
      message: 'This organization is full: Business 10 allows 10 users. Ask an owner or admin to make room.',
    });
    expect(await counts(orgId)).toEqual({ members: 9, open: 2 });

    // Quinn's invitation revoked: 10 counted, exactly the cap. Another invitation is one past it.
    const pending = await owner.call('GET', `/api/orgs/${orgId}/invitations`);
    const quinn = pending.data.invitations.find((i: { email: string }) => i.email === 'quinn.cap@example.com');
    expect((await admin.call('DELETE', `/api/orgs/${orgId}/invitations/${quinn.id}`)).statusCode).toBe(204);
    expect((await invite(owner, orgId, 'rosa.cap@example.com')).statusCode).toBe(409);
    const atCap = await pia.call('POST', '/api/invitations/accept', { token: piaToken });
    expect(atCap.statusCode).toBe(200);
    expect(await counts(orgId)).toEqual({ members: 10, open: 0 });
    expect((await invite(admin, orgId, 'rosa.cap@example.com')).statusCode).toBe(409);

    // One member fewer: exactly one invitation fits again.
    const cap7 = await userIdOf('cap7@example.com');
    expect((await owner.call('DELETE', `/api/orgs/${orgId}/users/${cap7}`)).statusCode).toBe(204);
    expect((await invite(owner, orgId, 'rosa.cap@example.com')).statusCode).toBe(201);
    expect((await invite(owner, orgId, 'sol.cap@example.com')).statusCode).toBe(409);
    expect(await counts(orgId)).toEqual({ members: 9, open: 1 });

    const log = (await auditOf(owner, orgId, '?limit=100')).data.entries;
    const planChanged = log.find((e: { kind: string }) => e.kind === 'plan.changed');
    expect(planChanged).toMatchObject({
      actor: null,
      target: { kind: 'organization', id: orgId },
      details: { from: 'business50', to: 'business10' },
    });
    const statuses = log
      .filter((e: { kind: string }) => e.kind.startsWith('organization.'))
      .map((e: { kind: string }) => e.kind);
    expect(statuses).toEqual(['organization.reactivated', 'organization.suspended']);
    expect(log.filter((e: { kind: string }) => e.kind === 'invitation.revoked')).toHaveLength(1);
  }, 120_000);

  it('invites and an acceptance racing from several sessions never pass the cap', async () => {
    // 9 members and Rosa's open invitation: remove one member, so 9 are counted and one place is left.
    const cap6 = await userIdOf('cap6@example.com');
    expect((await owner.call('DELETE', `/api/orgs/${orgId}/users/${cap6}`)).statusCode).toBe(204);
    expect(await counts(orgId)).toEqual({ members: 8, open: 1 });
    const rosa = await person('rosa.cap@example.com');
    const token = await invitationToken('rosa.cap@example.com');
    const cap5 = new Client(stack.app, '203.0.113.250');
    expect((await cap5.call('POST', '/api/auth/login', { email: 'cap5@example.com', password })).statusCode).toBe(200);
    // cap5 is a member: its invitation attempts are refused with 403 and count for nothing.
    const answers = await Promise.all([
      rosa.call('POST', '/api/invitations/accept', { token }),
      invite(owner, orgId, 'race1@example.com'),
      invite(admin, orgId, 'race2@example.com'),
      invite(owner, orgId, 'race3@example.com'),
      invite(admin, orgId, 'race4@example.com'),
      invite(cap5, orgId, 'race5@example.com'),
    ]);
    expect(answers[0]!.statusCode).toBe(200);
    const invited = answers.slice(1, 5).map((answer) => answer.statusCode);
    expect(invited.filter((status) => status === 201)).toHaveLength(1);
    expect(invited.filter((status) => status === 409)).toHaveLength(3);
    expect(answers[5]!.statusCode).toBe(403);
    expect(await counts(orgId)).toEqual({ members: 9, open: 1 });
  }, 60_000);
});
