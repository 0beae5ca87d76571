import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, confirmEmail, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { consumerHolds } from './support/held-consumers.ts';
import {
  cancelOrganizationPlan,
  changeRole,
  invite,
  leaveOrganization,
  joinOrganization,
  ownOrganization,
  removeMember,
  userIdOf,
} from './support/organizations.ts';
import { purchaseClaimedConsumer } from '../../identity/src/consumers/purchase-claimed.consumer.ts';
import { subscriptionConsumers as identitySubscriptionConsumers } from '../../identity/src/consumers/subscription-changed.consumer.ts';
import { memberJoinedConsumer } from '../../provisioning/src/consumers/member-joined.consumer.ts';
import { memberLeftConsumer } from '../../provisioning/src/consumers/member-left.consumer.ts';
import { memberRoleChangedConsumer } from '../../provisioning/src/consumers/member-role-changed.consumer.ts';
import { organizationStatusChangedConsumer } from '../../provisioning/src/consumers/organization-status-changed.consumer.ts';
import { subscriptionConsumers } from '../../provisioning/src/consumers/subscription-changed.consumer.ts';

/**
 * Read-your-writes between services (issue #20, item 5): right after one service answers a change,
 * the service that depends on it acts on it. Each pair makes the change and IMMEDIATELY asks the
 * dependent service, with the events that carry the change held back (the dependent's durable
 * consumers stopped until the dependent request has its answer, or for 300 ms after the change
 * where the owner's answer waits for the dependent), so the test does not depend on how fast the
 * bus is: the dependent must ask the owner, or the owner's answer must wait for it.
 */
let stack: Stack;
const password = 'correct horse battery';
let address = 1;
const nextAddress = () => `198.18.7.${address++}`;
const { hold, holdBriefly, stopAll: stopRestartedConsumers } = consumerHolds();

const identity = () => stack.services.identity!;
const provisioning = () => stack.services.provisioning!;
/** Everything provisioning learns of identity's organizations and billing's subscriptions. */
const provisioningProjections = [
  memberJoinedConsumer,
  memberRoleChangedConsumer,
  memberLeftConsumer,
  organizationStatusChangedConsumer,
  ...subscriptionConsumers,
];

/** A person who signed up and confirmed their address (joins organizations by invitation). */
async function person(email: string) {
  const client = await signUpConfirmed(stack, email, nextAddress(), password);
  return { client, email, id: await userIdOf(client) };
}

/** Pays a plan in the test checkout and signs up with the paid address; the claim is the caller's. */
async function paidBuyer(email: string, planCode = 'business10') {
  const client = new Client(stack.app, nextAddress());
  const started = await client.call('POST', '/api/checkout', { plan_code: planCode, quantity: 1 });
  expect(started.statusCode).toBe(200);
  const sessionId: string = started.data.session_id;
  const paid = await new Client(stack.app, nextAddress()).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
    email,
    card_number: '4242424242424242',
  });
  expect(paid.statusCode).toBe(200);
  expect((await client.call('POST', '/api/auth/signup', { email, password })).statusCode).toBe(201);
  return { client, email, sessionId };
}

/** A Business plan paid and claimed by a new owner, and the organization it made. */
async function businessOwner(email: string, planCode: string) {
  const owner = await paidBuyer(email, planCode);
  const claim = await owner.client.call('POST', '/api/checkout/claim', { session_id: owner.sessionId, email });
  expect(claim.statusCode).toBe(200);
  return { ...owner, claim, orgId: await ownOrganization(owner.client) };
}

const addDevice = (who: Client, orgId: string, body: Record<string, unknown>) =>
  who.call('POST', `/api/orgs/${orgId}/devices`, body);

async function added(who: Client, orgId: string, body: Record<string, unknown>) {
  const answer = await addDevice(who, orgId, body);
  if (answer.statusCode !== 201) throw new Error(`add: ${answer.statusCode} ${answer.body}`);
}

beforeAll(async () => {
  stack = await startStack({ label: 'readyourwrites', extra: deviceServices });
  await registerTestNode(stack, 'ryw-node-1');
}, 60_000);

afterAll(async () => {
  await stopRestartedConsumers();
  await stack?.stop();
});

describe('read-your-writes', () => {
  it('a Business claim: the new organization takes a device at once (8 of 8)', async () => {
    for (let i = 0; i < 8; i++) {
      const buyer = await paidBuyer(`claim-${i}@example.com`);
      // Identity makes the organization from billing's claim event, provisioning learns of it from
      // identity's and billing's events: all of them wait until the device was asked for.
      const releaseProvisioning = await hold(provisioning(), provisioningProjections);
      const { releasing } = await holdBriefly(identity(), [purchaseClaimedConsumer]);
      try {
        const claim = await buyer.client.call('POST', '/api/checkout/claim', {
          session_id: buyer.sessionId,
          email: buyer.email,
        });
        expect(claim.statusCode, claim.body).toBe(200);
        const orgId: string = claim.data.org_id;
        const device = await addDevice(buyer.client, orgId, { name: `First ${i}` });
        expect(device.statusCode, `try ${i}: ${device.body}`).toBe(201);
        const organization = await buyer.client.call('GET', `/api/orgs/${orgId}`);
        expect(organization.statusCode, `try ${i}: ${organization.body}`).toBe(200);
      } finally {
        await releasing;
        await releaseProvisioning();
      }
    }
  }, 120_000);

  it('an invitation accepted: the owner counts the new member, who adds a device at once, and the owner one for them (8 of 8)', async () => {
    const { orgId, ...owner } = await businessOwner('inviting-owner@example.com', 'business50');
    for (let i = 0; i < 8; i++) {
      const member = await person(`joiner-${i}@example.com`);
      const { releasing } = await holdBriefly(provisioning(), provisioningProjections);
      try {
        await joinOrganization(stack, orgId, owner.client, member);
        // The owner's list counts the new member (none of their devices yet).
        const before = await owner.client.call('GET', `/api/orgs/${orgId}/devices`);
        expect(before.data.quota.by_assignee[member.id], `try ${i}: ${before.body}`).toBe(0);
        const own = await addDevice(member.client, orgId, { name: `Joiner ${i}` });
        expect(own.statusCode, `try ${i}: ${own.body}`).toBe(201);
        const forThem = await addDevice(owner.client, orgId, { name: `For joiner ${i}`, assignee_id: member.id });
        expect(forThem.statusCode, `try ${i}: ${forThem.body}`).toBe(201);
      } finally {
        await releasing;
      }
    }
  }, 120_000);

  it("a member made admin manages the others' devices at once, and made member again no longer (8 of 8)", async () => {
    const { orgId, ...owner } = await businessOwner('promoting-owner@example.com', 'business50');
    const other = await person('other-member@example.com');
    await joinOrganization(stack, orgId, owner.client, other);
    await added(other.client, orgId, { name: 'Other laptop' });
    const othersDevice = (await other.client.call('GET', `/api/orgs/${orgId}/devices`)).data.devices[0].id as string;
    for (let i = 0; i < 8; i++) {
      const member = await person(`promoted-${i}@example.com`);
      await joinOrganization(stack, orgId, owner.client, member);
      // Provisioning has counted them as a member since they joined.
      await added(member.client, orgId, { name: `Promoted own ${i}` });
      for (const role of ['admin', 'member'] as const) {
        // Provisioning learns the new role from identity's event, held until the change answered.
        const { releasing } = await holdBriefly(provisioning(), provisioningProjections);
        try {
          await changeRole(owner.client, orgId, member.id, role);
          const rename = await member.client.call('PATCH', `/api/devices/${othersDevice}`, { name: `By ${role} ${i}` });
          if (role === 'admin') {
            expect(rename.statusCode, `try ${i}: ${rename.body}`).toBe(200);
            const forOther = await addDevice(member.client, orgId, { name: `By admin ${i}`, assignee_id: other.id });
            expect(forOther.statusCode, `try ${i}: ${forOther.body}`).toBe(201);
            // The other member may have 5 organization devices: one is removed again each time.
            expect((await member.client.call('DELETE', `/api/devices/${forOther.data.device.id}`)).statusCode).toBe(
              204,
            );
          } else expect(rename.statusCode, `try ${i}: ${rename.body}`).toBe(404);
        } finally {
          await releasing;
        }
      }
    }
  }, 180_000);

  it("a member removed: their devices are gone from the organization's list at once (8 of 8)", async () => {
    const { orgId, ...owner } = await businessOwner('removing-owner@example.com', 'business50');
    for (let i = 0; i < 8; i++) {
      const member = await person(`removed-${i}@example.com`);
      await joinOrganization(stack, orgId, owner.client, member);
      await added(member.client, orgId, { name: `Removed ${i}` });
      // Provisioning deletes their devices when identity's event comes, held until the removal answered.
      const { releasing } = await holdBriefly(provisioning(), provisioningProjections);
      try {
        const leaving = i % 2 === 0;
        if (leaving) await leaveOrganization(member.client, orgId);
        else await removeMember(owner.client, orgId, member.id);
        const listed = await owner.client.call('GET', `/api/orgs/${orgId}/devices`);
        const theirs = (listed.data.devices as Array<{ user_id: string }>).filter((d) => d.user_id === member.id);
        expect(theirs, `try ${i} (${leaving ? 'left' : 'removed'})`).toEqual([]);
      } finally {
        await releasing;
      }
    }
  }, 180_000);

  it("a larger plan: the device and the person past the old plan's counts are added at once", async () => {
    const { orgId, claim, ...owner } = await businessOwner('growing-owner@example.com', 'business10');
    const first = await person('grow-first@example.com');
    const second = await person('grow-second@example.com');
    await joinOrganization(stack, orgId, owner.client, first);
    await joinOrganization(stack, orgId, owner.client, second);
    for (let i = 1; i <= 5; i++) await added(owner.client, orgId, { name: `Owner ${i}` });
    for (let i = 1; i <= 5; i++) await added(first.client, orgId, { name: `First ${i}` });
    // Business 10 holds 10 devices: the 11th is refused on the old plan.
    expect((await addDevice(second.client, orgId, { name: 'Eleventh' })).data.error?.details?.limit).toBe('device_cap');
    // Business 10 holds 10 people, open invitations counted: the 11th invitation is refused.
    for (let i = 1; i <= 7; i++) await invite(stack, owner.client, orgId, `grow-invited-${i}@example.com`);
    const eleventhPerson = { email: 'grow-eleventh@example.com', role: 'member' };
    const refusedInvitation = await owner.client.call('POST', `/api/orgs/${orgId}/invitations`, eleventhPerson);
    expect(refusedInvitation.data.error?.code).toBe('quota_exceeded');
    // Identity learns the new plan from billing's event, provisioning from billing's and identity's.
    const releaseProvisioning = await hold(provisioning(), provisioningProjections);
    const { releasing } = await holdBriefly(identity(), identitySubscriptionConsumers);
    try {
      const upgraded = await owner.client.call('POST', '/api/billing/change-plan', {
        subscription_id: claim.data.subscription_id,
        plan_code: 'business50',
      });
      expect(upgraded.statusCode, upgraded.body).toBe(200);
      expect(upgraded.data).toMatchObject({ takes_effect: 'now' });
      const eleventh = await addDevice(second.client, orgId, { name: 'Eleventh' });
      expect(eleventh.statusCode, eleventh.body).toBe(201);
      const quota = (await owner.client.call('GET', `/api/orgs/${orgId}/devices`)).data.quota;
      expect(quota).toMatchObject({ devices: 11, device_cap: 50 });
      const invitation = await owner.client.call('POST', `/api/orgs/${orgId}/invitations`, eleventhPerson);
      expect(invitation.statusCode, invitation.body).toBe(201);
    } finally {
      await releasing;
      await releaseProvisioning();
    }
  }, 120_000);

  it('an organization paid again: its owner adds a device at once (8 of 8)', async () => {
    for (let i = 0; i < 8; i++) {
      // A money-back cancellation (the plan ends at once) is one per account: one owner per try.
      const { orgId, ...owner } = await businessOwner(`renewing-owner-${i}@example.com`, 'business10');
      await confirmEmail(stack, owner.email, password, owner.client);
      await cancelOrganizationPlan(owner.client, orgId);
      // Provisioning counts it Suspended, as identity said.
      const suspended = await addDevice(owner.client, orgId, { name: `While suspended ${i}` });
      expect(suspended.statusCode).toBe(403);
      const checkout = await owner.client.call('POST', '/api/checkout', { plan_code: 'business10', quantity: 1 });
      const paid = await new Client(stack.app, nextAddress()).call(
        'POST',
        `/api/billing/test-checkout/${checkout.data.session_id}/pay`,
        { email: owner.email, card_number: '4242424242424242' },
      );
      expect(paid.statusCode).toBe(200);
      // Identity counts the organization Active again from billing's events, provisioning from
      // identity's and billing's: all of them wait until the device was asked for.
      const releaseProvisioning = await hold(provisioning(), provisioningProjections);
      const { releasing } = await holdBriefly(identity(), identitySubscriptionConsumers);
      try {
        const claim = await owner.client.call('POST', '/api/checkout/claim', {
          session_id: checkout.data.session_id,
          email: owner.email,
          org_id: orgId,
        });
        expect(claim.statusCode, claim.body).toBe(200);
        const device = await addDevice(owner.client, orgId, { name: `Renewed ${i}` });
        expect(device.statusCode, `try ${i}: ${device.body}`).toBe(201);
        expect((await owner.client.call('GET', `/api/orgs/${orgId}`)).data.status).toBe('Active');
      } finally {
        await releasing;
        await releaseProvisioning();
      }
    }
  }, 180_000);
});
