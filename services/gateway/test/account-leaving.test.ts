import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually } from '@qw/testkit';
import { confirmedPerson, deviceAdded, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { cancelOrganizationPlan, joinOrganization, ownOrganization } from './support/organizations.ts';
import { startStack, type Stack } from './support/stack.ts';

/**
 * Leaving inside an organization (issue #26), through the gateway against real identity, billing
 * and provisioning: its last owner is refused while others need it or its plan runs; a member who
 * deletes their account leaves it, their organization devices go, and its audit log keeps what
 * happened without their name or address; an owner alone with no plan takes the organization along.
 */
let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'leaving', extra: deviceServices });
  await registerTestNode(stack, 'leaving-node');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function rowsHolding(service: 'identity' | 'billing' | 'provisioning', needles: string[]): Promise<string[]> {
  const db = stack.services[service]!.db;
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  const found: string[] = [];
  for (const { table_name: table } of tables.rows) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows.rows) {
      const text = JSON.stringify(row);
      for (const needle of needles) if (text.includes(needle)) found.push(`${service}.${table}: ${needle}`);
    }
  }
  return found;
}

describe('deleting an account that belongs to an organization', () => {
  it('refuses the last owner, lets a member go with their devices, then lets the owner go once the plan ended', async () => {
    const owner = await confirmedPerson(stack, 'olga.owner@example.com', { plan: 'business10' }, password);
    const orgId = await ownOrganization(owner.client);
    const member = await confirmedPerson(stack, 'mo.member@example.com', { address: '203.0.113.61' }, password);
    await joinOrganization(stack, orgId, owner.client, member);
    expect((await member.client.call('PATCH', '/api/me/profile', { full_name: 'Mo Member' })).statusCode).toBe(200);
    const memberDevice = await deviceAdded(member.client, { name: 'Mo laptop' }, `/api/orgs/${orgId}/devices`);

    const refused = await owner.client.call('POST', '/api/me/delete', { password });
    expect(refused.statusCode).toBe(409);
    expect(refused.data.error.message).toMatch(/^You are the only owner of .+\. Make another member an owner/);

    const gone = await member.client.call('POST', '/api/me/delete', { password });
    expect(gone.statusCode).toBe(200);
    await eventually(async () => {
      const devices = (await owner.client.call('GET', `/api/orgs/${orgId}/devices`)).data.devices as Array<{
        id: string;
      }>;
      return !devices.some((d) => d.id === memberDevice.id);
    }, 15_000);
    const users = (await owner.client.call('GET', `/api/orgs/${orgId}/users`)).data.users as Array<{ user_id: string }>;
    expect(users.map((u) => u.user_id)).toEqual([owner.id]);
    await eventually(async () => (await rowsHolding('identity', ['identity.user.deleted'])).length === 0, 10_000);
    const audit = await stack.services
      .identity!.db.selectFrom('audit_log')
      .select(['actor_name', 'target_name', 'kind'])
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or([eb('actor_id', '=', member.id), eb('target_id', '=', member.id), eb('person_id', '=', member.id)]),
      )
      .execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(
      await rowsHolding('identity', ['mo.member@example.com', 'Mo Member', 'Mo laptop', memberDevice.public_key]),
    ).toEqual([]);
    expect(await rowsHolding('provisioning', ['Mo laptop', memberDevice.public_key])).toEqual([]);

    const stillPaid = await owner.client.call('POST', '/api/me/delete', { password });
    expect(stillPaid.statusCode).toBe(409);
    expect(stillPaid.data.error.message).toMatch(
      /its plan is still active\. Cancel its plan before deleting your account\.$/,
    );

    await cancelOrganizationPlan(owner.client, orgId);
    expect((await owner.client.call('POST', '/api/me/delete', { password })).statusCode).toBe(200);
    const orgs = await stack.services
      .identity!.db.selectFrom('organizations')
      .select('id')
      .where('id', '=', orgId)
      .execute();
    expect(orgs).toEqual([]);
    await eventually(async () => (await rowsHolding('billing', ['olga.owner@example.com'])).length === 0, 10_000);
  }, 120_000);
});
