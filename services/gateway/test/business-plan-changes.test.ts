import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpConfirmed, startStack, type Client, type Stack } from './support/stack.ts';
import { eventually } from '@qw/testkit';
import { confirmedPerson, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { joinOrganization, ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * Issue #26: an organization's owner moves between the Business plans in the app, with the charge
 * previewed first; a move to a plan smaller than the members or devices in use is refused, in the
 * preview and in the change, until enough is removed. Through the real gateway, billing, identity
 * and provisioning (which count the members and the devices).
 */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ label: 'bizplans', extra: deviceServices });
  // Devices are placed on a server: one registered node, without an agent.
  await registerTestNode(stack, 'bizplans-a');
});
afterAll(async () => {
  await stack?.stop();
});

const preview = (client: Client, subscriptionId: string, planCode: string) =>
  client.call(
    'GET',
    `/api/billing/change-plan/preview?subscription_id=${subscriptionId}&plan_code=${encodeURIComponent(planCode)}`,
  );
const change = (client: Client, subscriptionId: string, planCode: string) =>
  client.call('POST', '/api/billing/change-plan', { subscription_id: subscriptionId, plan_code: planCode });

describe('Business plan changes (issue #26)', () => {
  it('a downgrade below the devices in use is refused with what to remove; once removed it waits for the renewal', async () => {
    const owner = await confirmedPerson(stack, 'lead.bizplans@example.com', { plan: 'business50' });
    const orgId = await ownOrganization(owner.client);
    const members: Array<{ client: Client; id: string }> = [];
    for (const name of ['ana', 'ben']) {
      const email = `${name}.bizplans@example.com`;
      const client = await signUpConfirmed(stack, email, `198.51.100.${members.length + 40}`);
      await joinOrganization(stack, orgId, owner.client, { client, email });
      members.push({ client, id: await userIdOf(client) });
    }
    // Eleven devices: five for the owner, five for Ana, one for Ben (five each at most).
    const devices: string[] = [];
    const assignees: string[] = [...Array(5).fill(owner.id), ...Array(5).fill(members[0]!.id), members[1]!.id];
    for (const [index, assignee] of assignees.entries()) {
      // Provisioning learns of a new member from identity's event a moment after the invitation is accepted.
      const added = await eventually(async () => {
        const answer = await owner.client.call('POST', `/api/orgs/${orgId}/devices`, {
          name: `Laptop ${index + 1}`,
          assignee_id: assignee,
        });
        if (answer.statusCode !== 201) throw new Error(`${answer.statusCode} ${answer.body}`);
        return answer.data.device as { id: string };
      }, 15_000);
      devices.push(added.id);
    }
    expect(devices).toHaveLength(11);

    const billing = await owner.client.call('GET', `/api/billing?org_id=${orgId}`);
    expect(billing.data.subscription).toMatchObject({ plan: 'business50', status: 'active' });
    const subscriptionId: string = billing.data.subscription.id;

    const refusal = {
      code: 'conflict',
      message:
        'Business 10 allows 10 members and 10 devices; this organization has 3 members and 11 devices. Remove 1 device first, then change the plan.',
    };
    const previewed = await preview(owner.client, subscriptionId, 'business10');
    expect(previewed.statusCode).toBe(409);
    expect(previewed.data.error).toEqual(refusal);
    const refused = await change(owner.client, subscriptionId, 'business10');
    expect(refused.statusCode).toBe(409);
    expect(refused.data.error).toEqual(refusal);
    expect((await owner.client.call('GET', `/api/billing?org_id=${orgId}`)).data.subscription).toMatchObject({
      plan: 'business50',
      pending_plan: null,
    });

    // An upgrade is never held back by what is in use; the preview says what is charged now.
    const upgrade = await preview(owner.client, subscriptionId, 'business250');
    expect(upgrade.statusCode).toBe(200);
    expect(upgrade.data).toMatchObject({ plan_code: 'business250', takes_effect: 'now', next_charge_cents: 85000 });

    expect((await owner.client.call('DELETE', `/api/devices/${devices.at(-1)}`)).statusCode).toBe(204);
    const allowed = await preview(owner.client, subscriptionId, 'business10');
    expect(allowed.statusCode).toBe(200);
    expect(allowed.data).toMatchObject({ takes_effect: 'period_end', charge_now_cents: 0, next_charge_cents: 5000 });
    const changed = await change(owner.client, subscriptionId, 'business10');
    expect(changed.statusCode).toBe(200);
    expect(changed.data).toMatchObject({ takes_effect: 'period_end', charged_cents: 0 });
    expect(changed.data.subscription).toMatchObject({ plan: 'business50', pending_plan: 'business10', org_id: orgId });
  });
});
