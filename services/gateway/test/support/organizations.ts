import { consumerSettled, eventually } from '@qw/testkit';
import { sql } from 'kysely';
import { Client, linkToken, type Stack } from './stack.ts';

/**
 * Organizations as their people make them, for the tests that need members in one: every helper
 * goes through the gateway's routes and the mails identity sends (read from the stack's SMTP
 * capture), so identity decides, publishes its events and answers `identity.rpc.membership`
 * itself. Each helper fails loudly when the product refuses, so a test never goes on from a state
 * it did not reach.
 */

type Answer = Awaited<ReturnType<Client['call']>>;

function expectStatus(answer: Answer, status: number, what: string): Answer {
  if (answer.statusCode !== status) throw new Error(`${what}: ${answer.statusCode} ${answer.body}`);
  return answer;
}

/** The signed-in person's own id, as the product tells them. */
export async function userIdOf(client: Client): Promise<string> {
  return expectStatus(await client.call('GET', '/api/me'), 200, 'me').data.user.id;
}

/** The organization the owner's business purchase made (identity makes it from billing's claim event). */
export async function ownOrganization(owner: Client): Promise<string> {
  const org = await eventually(
    async () => {
      const answer = await owner.call('GET', '/api/orgs');
      const organizations = (answer.data.organizations ?? []) as Array<{ id: string; role: string }>;
      return organizations.find((o) => o.role === 'owner');
    },
    10_000,
    50,
  );
  return org.id;
}

/** `by` invites `email`; answers the token of the invitation mail that invite sent. */
export async function invite(
  stack: Stack,
  by: Client,
  orgId: string,
  email: string,
  role: 'admin' | 'member' = 'member',
): Promise<string> {
  const earlier = new Set(stack.smtp.messages);
  expectStatus(await by.call('POST', `/api/orgs/${orgId}/invitations`, { email, role }), 201, `invite ${email}`);
  const mail = await stack.smtp.waitFor(
    (m) =>
      !earlier.has(m) &&
      (m.to as { text: string } | undefined)?.text === email.toLowerCase() &&
      m.subject?.startsWith('Join ') === true,
  );
  return linkToken(mail.text!, '/invite');
}

/**
 * `member` (signed in as `email`) joins the organization with `role`: invited by `by`, accepted
 * from the mailed link. Identity publishes `identity.org.member-joined`.
 */
export async function joinOrganization(
  stack: Stack,
  orgId: string,
  by: Client,
  member: { client: Client; email: string },
  role: 'admin' | 'member' = 'member',
): Promise<void> {
  const token = await invite(stack, by, orgId, member.email, role);
  expectStatus(await member.client.call('POST', '/api/invitations/accept', { token }), 200, `accept ${member.email}`);
}

/** An owner or admin changes a member's role (PATCH /api/orgs/:id/users/:userId). */
export async function changeRole(by: Client, orgId: string, userId: string, role: 'owner' | 'admin' | 'member') {
  expectStatus(await by.call('PATCH', `/api/orgs/${orgId}/users/${userId}`, { role }), 200, `role ${role}`);
}

/** An owner or admin removes a member (DELETE /api/orgs/:id/users/:userId). */
export async function removeMember(by: Client, orgId: string, userId: string): Promise<void> {
  expectStatus(await by.call('DELETE', `/api/orgs/${orgId}/users/${userId}`), 204, 'remove member');
}

/** The member leaves on their own (POST /api/orgs/:id/leave). */
export async function leaveOrganization(member: Client, orgId: string): Promise<void> {
  expectStatus(await member.call('POST', `/api/orgs/${orgId}/leave`), 204, 'leave');
}

/** The organization's status as its people see it ('Active' or 'Suspended'). */
export async function organizationStatus(client: Client, orgId: string): Promise<string> {
  return expectStatus(await client.call('GET', `/api/orgs/${orgId}`), 200, 'organization').data.status;
}

/**
 * The owner cancels the organization's plan in the test portal (within the first 7 days it ends at
 * once); identity follows billing's event and the organization is Suspended.
 */
export async function cancelOrganizationPlan(owner: Client, orgId: string): Promise<void> {
  const billing = expectStatus(await owner.call('GET', `/api/billing?org_id=${orgId}`), 200, 'billing');
  const canceled = await owner.call('POST', '/api/billing/test-portal/cancel', {
    subscription_id: billing.data.subscription.id,
  });
  if (expectStatus(canceled, 200, 'cancel').data.status !== 'canceled') throw new Error(`cancel: ${canceled.body}`);
  await eventually(async () => (await organizationStatus(owner, orgId)) === 'Suspended', 15_000, 50);
}

/**
 * The owner buys a Business plan again and claims it for the organization (the claim's `org_id`);
 * identity follows billing's event and the organization is Active again. The owner's address must
 * be confirmed (the account is older than this payment).
 */
export async function payAgain(
  stack: Stack,
  owner: Client,
  ownerEmail: string,
  orgId: string,
  planCode = 'business10',
): Promise<void> {
  const checkout = expectStatus(
    await owner.call('POST', '/api/checkout', { plan_code: planCode, quantity: 1 }),
    200,
    'checkout',
  );
  const sessionId = checkout.data.session_id;
  const paid = await new Client(stack.app, owner.address).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
    email: ownerEmail,
    card_number: '4242424242424242',
  });
  expectStatus(paid, 200, 'pay');
  const claimed = await owner.call('POST', '/api/checkout/claim', {
    session_id: sessionId,
    email: ownerEmail,
    org_id: orgId,
  });
  expectStatus(claimed, 200, 'claim');
  await eventually(async () => (await organizationStatus(owner, orgId)) === 'Active', 15_000, 50);
}

/**
 * Provisioning has handled every organization event identity has made so far: identity's relay
 * has published its outbox, and provisioning's consumers of identity's events have nothing
 * pending or unacknowledged.
 */
export async function organizationEventsHandled(stack: Stack): Promise<void> {
  const identity = stack.services.identity!.db;
  await eventually(
    async () => (await sql<{ n: number }>`select count(*)::int as n from outbox`.execute(identity)).rows[0]!.n === 0,
    10_000,
    25,
  );
  const provisioning = stack.services.provisioning!;
  for (const durable of [
    'provisioning.member-joined',
    'provisioning.member-role-changed',
    'provisioning.member-left',
    'provisioning.organization-status-changed',
  ]) {
    await eventually(() => consumerSettled(provisioning.bus, 'identity', durable), 10_000, 25);
  }
}
