import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@qw/testkit';
import { type Client, confirmEmail, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * Issue #20 item 8: what an operator does to an organization (its devices from the console, the
 * organization's own suspension) shows in the organization's audit log as done by "Quietwire
 * support"; the operator's address and user id stay in the operators' own audit.
 */
const password = 'correct horse battery';
const opsEmail = 'ops.person@quietwire.test';
const ownerEmail = 'fran@example.com';

let stack: Stack;
let ops: Client;
let opsId: string;
let owner: Client;
let ownerId: string;
let orgId: string;
let deviceId: string;

type Entry = { kind: string; actor: { user_id: string | null; name: string } | null; target: { id: string } | null };

beforeAll(async () => {
  stack = await startStack({ label: 'org-audit-operator', adminEmails: [opsEmail], extra: deviceServices });
  await registerTestNode(stack, 'audit-node');
  ops = await signUpConfirmed(stack, opsEmail, '198.51.100.61', password);
  opsId = await userIdOf(ops);
  owner = await customerWithPlan(stack, ownerEmail, 'business10', password);
  owner = await confirmEmail(stack, ownerEmail, password, owner);
  ownerId = await userIdOf(owner);
  orgId = await ownOrganization(owner);
  deviceId = (await deviceAdded(owner, { name: 'Front desk' }, `/api/orgs/${orgId}/devices`)).id;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe("an operator's changes in the organization's audit log", () => {
  it('show Quietwire support as the actor, never the operator', async () => {
    for (const action of ['suspend', 'activate'])
      expect((await ops.call('POST', '/api/admin-device', { action, deviceId })).statusCode).toBe(200);
    expect(
      (await ops.call('POST', `/api/admin/organizations/${orgId}/suspend`, { reason: 'Chargebacks.' })).statusCode,
    ).toBe(200);
    expect((await ops.call('POST', `/api/admin/organizations/${orgId}/reactivate`)).statusCode).toBe(200);

    const page = await eventually(async () => {
      const answer = await owner.call('GET', `/api/orgs/${orgId}/audit?limit=100`);
      const kinds = (answer.data.entries as Entry[]).map((entry) => entry.kind);
      // Each kind comes through its own consumer of provisioning's and identity's events, in no set order.
      return [
        'device.added',
        'device.suspended',
        'device.activated',
        'organization.suspended',
        'organization.reactivated',
      ].every((kind) => kinds.includes(kind))
        ? answer
        : undefined;
    });
    const byKind = Object.fromEntries((page.data.entries as Entry[]).map((entry) => [entry.kind, entry]));
    const support = { user_id: null, name: 'Quietwire support' };
    expect(byKind['device.suspended']!.actor).toEqual(support);
    expect(byKind['device.activated']!.actor).toEqual(support);
    expect(byKind['organization.suspended']!.actor).toEqual(support);
    expect(byKind['organization.reactivated']!.actor).toEqual(support);
    expect(page.body).not.toContain(opsEmail);
    expect(page.body).not.toContain(opsId);
    // The customer's own change keeps its actor.
    expect(byKind['device.added']!.actor).toMatchObject({ user_id: ownerId });
  });

  it("keep the operator's identity in the operators' own audit", async () => {
    const audit = await ops.call('GET', '/api/admin/audit?per_page=50');
    expect(audit.statusCode).toBe(200);
    const suspended = audit.data.rows.find((row: { kind: string }) => row.kind === 'device.suspended');
    expect(suspended).toMatchObject({ actor_id: opsId, actor_email: opsEmail });
    const organization = audit.data.rows.find((row: { kind: string }) => row.kind === 'organization.suspended');
    expect(organization).toMatchObject({ actor_id: opsId, actor_email: opsEmail });
  });
});
