import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { billingService } from '@qw/billing';
import { customerWithPlan } from './support/products.ts';
import {
  changeRole,
  invite,
  joinOrganization,
  leaveOrganization,
  ownOrganization,
  removeMember,
  userIdOf,
} from './support/organizations.ts';
import { type Client, signUp, startStack, type Stack } from './support/stack.ts';

/**
 * Issue #20 item 6: an invitation is only as good as its sender's right to send it. An admin of an
 * organization who is demoted, removed or leaves cannot come back as admin through an invitation
 * they sent to another of their addresses: their open invitations are revoked when they lose the
 * right, and accepting checks the sender's right again.
 */
const password = 'correct horse battery';
let stack: Stack;
let owner: Client;
let orgId: string;
let addresses = 40;

const identityDb = () => stack.services.identity!.db;

const person = (email: string): Promise<Client> => signUp(stack, email, `203.0.113.${addresses++}`, password);

/** A new admin of the organization (invited by the owner), signed in. */
async function newAdmin(email: string): Promise<{ client: Client; id: string }> {
  const client = await person(email);
  await joinOrganization(stack, orgId, owner, { client, email }, 'admin');
  return { client, id: await userIdOf(client) };
}

async function openInvitations(): Promise<string[]> {
  const answer = await owner.call('GET', `/api/orgs/${orgId}/invitations`);
  expect(answer.statusCode).toBe(200);
  return answer.data.invitations.map((invitation: { email: string }) => invitation.email);
}

async function roleOf(email: string): Promise<string | undefined> {
  const answer = await owner.call('GET', `/api/orgs/${orgId}/users`);
  return answer.data.users.find((user: { email: string }) => user.email === email)?.role;
}

/** `email` (a second address of someone) accepts `token`. */
async function acceptAs(email: string, token: string) {
  return (await person(email)).call('POST', '/api/invitations/accept', { token });
}

beforeAll(async () => {
  stack = await startStack({
    label: 'invitation-rights',
    extra: (url) => [billingService({ PUBLIC_URL: url, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })],
  });
  owner = await customerWithPlan(stack, 'olga@example.com', 'business10', password);
  orgId = await ownOrganization(owner);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const revokedLink = {
  status: 410,
  code: 'link_expired',
  message: 'This invitation has been revoked. Ask the person who invited you for a new one.',
};
const answerOf = (answer: Awaited<ReturnType<Client['call']>>) => ({
  status: answer.statusCode,
  code: answer.data?.error?.code,
  message: answer.data?.error?.message,
});

describe("an inviter's open invitations", () => {
  it('are revoked when the inviter is demoted to member, and cannot be accepted', async () => {
    const ada = await newAdmin('ada@example.com');
    const token = await invite(stack, ada.client, orgId, 'ada.other@example.com', 'admin');
    expect(await openInvitations()).toContain('ada.other@example.com');

    await changeRole(owner, orgId, ada.id, 'member');
    expect(await openInvitations()).not.toContain('ada.other@example.com');
    expect(answerOf(await acceptAs('ada.other@example.com', token))).toEqual(revokedLink);
    expect(await roleOf('ada.other@example.com')).toBeUndefined();
    const log = await owner.call('GET', `/api/orgs/${orgId}/audit?kind=invitation.revoked`);
    expect(log.data.entries[0]).toMatchObject({
      kind: 'invitation.revoked',
      target: { kind: 'invitation', name: 'ada.other@example.com' },
      details: { role: 'admin', reason: 'inviter_lost_rights' },
    });
  });

  it('are revoked when the inviter is removed', async () => {
    const ben = await newAdmin('ben@example.com');
    const token = await invite(stack, ben.client, orgId, 'ben.other@example.com', 'admin');
    await removeMember(owner, orgId, ben.id);
    expect(await openInvitations()).not.toContain('ben.other@example.com');
    expect(answerOf(await acceptAs('ben.other@example.com', token))).toEqual(revokedLink);
    expect(await roleOf('ben.other@example.com')).toBeUndefined();
  });

  it('are revoked when the inviter leaves', async () => {
    const cleo = await newAdmin('cleo@example.com');
    const token = await invite(stack, cleo.client, orgId, 'cleo.other@example.com', 'member');
    await leaveOrganization(cleo.client, orgId);
    expect(answerOf(await acceptAs('cleo.other@example.com', token))).toEqual(revokedLink);
  });

  it('stay open while the inviter keeps the right (an owner made admin)', async () => {
    const dina = await newAdmin('dina@example.com');
    await changeRole(owner, orgId, dina.id, 'owner');
    const token = await invite(stack, dina.client, orgId, 'dina.friend@example.com', 'member');
    await changeRole(owner, orgId, dina.id, 'admin');
    expect(await openInvitations()).toContain('dina.friend@example.com');
    expect((await acceptAs('dina.friend@example.com', token)).statusCode).toBe(200);
    expect(await roleOf('dina.friend@example.com')).toBe('member');
  });
});

describe('accepting', () => {
  it("checks the inviter's right again, whatever the invitation's row says", async () => {
    const eli = await newAdmin('eli@example.com');
    const token = await invite(stack, eli.client, orgId, 'eli.other@example.com', 'admin');
    // The right lost by a path that revoked nothing (as rows written before this fix are).
    await sql`update org_members set role = 'member' where user_id = ${eli.id} and org_id = ${orgId}`.execute(
      identityDb(),
    );
    expect(await openInvitations()).toContain('eli.other@example.com');
    expect(answerOf(await acceptAs('eli.other@example.com', token))).toEqual({
      status: 410,
      code: 'link_expired',
      message:
        'This invitation is no longer valid: the person who sent it can no longer invite people. Ask an owner or admin for a new one.',
    });
    expect(await roleOf('eli.other@example.com')).toBeUndefined();
  });
});
