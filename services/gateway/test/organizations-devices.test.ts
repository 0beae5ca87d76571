import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { deviceCreated, deviceRemoved } from '@qw/contracts';
import { eventually } from '@qw/testkit';
import { Client, startStack, type Stack } from './support/stack.ts';
import { confirmedPerson, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { seedDevices, seedNode } from './support/seeded-devices.ts';
import type { ProvisioningDatabase } from '../../provisioning/src/database.ts';
import {
  cancelOrganizationPlan,
  changeRole,
  joinOrganization,
  leaveOrganization,
  organizationEventsHandled,
  organizationStatus,
  ownOrganization,
  payAgain,
  removeMember,
} from './support/organizations.ts';

/**
 * Organization devices (issue #12, spec §2 business Devices, §5 business add device, §6, §9):
 * who adds for whom, the 5-per-person and plan quotas at and past their limits, Suspended
 * organizations, what owners, admins and members may do to each device, and what leaving does.
 * The organizations are the product's own: made by business purchases, joined by invitations
 * accepted from their mail, Suspended by a cancelled plan and Active again by a new one.
 */
let stack: Stack;
const password = 'correct horse battery';
const people = {} as Record<
  'owen' | 'ada' | 'max' | 'mia' | 'dora' | 'paul' | 'pia' | 'ops' | 'bea' | 'cy' | 'cleo' | 'cole',
  { client: Client; id: string; email: string }
>;
let orgA: string;
let orgB: string;
let orgC: string;
let address = 10;

const provisioningDb = () => stack.services.provisioning!.db;
/** Provisioning's copy of identity's status of the organization (identity.org.status-changed). */
const statusKnownToProvisioning = async (orgId: string) =>
  (
    await provisioningDb()
      .selectFrom('organizations')
      .select('is_active')
      .where('org_id', '=', orgId)
      .executeTakeFirst()
  )?.is_active;
const deviceCount = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from devices`.execute(provisioningDb())).rows[0]!.n;

const person = (email: string, plan?: string) =>
  confirmedPerson(stack, email, plan ? { plan } : { address: `198.51.100.${address++}` }, password);

const add = (who: Client, orgId: string, body: Record<string, unknown>) =>
  who.call('POST', `/api/orgs/${orgId}/devices`, body);

async function added(who: Client, orgId: string, body: Record<string, unknown>) {
  const response = await add(who, orgId, body);
  if (response.statusCode !== 201) throw new Error(`add: ${response.statusCode} ${response.body}`);
  return response.data.device as { id: string; user_id: string; public_key: string; addresses: string[] };
}

/** Every event in provisioning's stream so far (an ordered consumer over the whole stream). */
async function provisioningEvents(): Promise<Array<{ subject: string; data: Record<string, unknown> }>> {
  const admin = await stack.connectAdmin();
  const consumer = await admin.js.consumers.get(admin.ns.stream('provisioning'));
  const events: Array<{ subject: string; data: Record<string, unknown> }> = [];
  for (let msg = await consumer.next({ expires: 1000 }); msg; msg = await consumer.next({ expires: 1000 })) {
    events.push({ subject: msg.subject, data: (msg.json() as { data: Record<string, unknown> }).data });
    if (msg.info.pending === 0) break;
  }
  return events;
}

beforeAll(async () => {
  stack = await startStack({ label: 'orgdevices', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
  await registerTestNode(stack, 'org-node-1');
  people.owen = await person('owen@example.com', 'business10');
  people.bea = await person('bea@example.com', 'business10');
  people.cy = await person('cy@example.com', 'business10');
  people.paul = await person('paul@example.com', 'personal');
  people.pia = await person('pia@example.com', 'personal');
  for (const name of ['ada', 'max', 'mia', 'dora', 'cleo', 'cole'] as const)
    people[name] = await person(`${name}@example.com`);
  people.ops = await person('ops@quietwire.test');
  orgA = await ownOrganization(people.owen.client);
  orgB = await ownOrganization(people.bea.client);
  orgC = await ownOrganization(people.cy.client);
  await joinOrganization(stack, orgA, people.owen.client, people.ada, 'admin');
  await joinOrganization(stack, orgA, people.owen.client, people.max);
  await joinOrganization(stack, orgA, people.ada.client, people.mia);
  await joinOrganization(stack, orgB, people.bea.client, people.max);
  await joinOrganization(stack, orgB, people.bea.client, people.paul);
  await joinOrganization(stack, orgA, people.owen.client, people.dora);
  await joinOrganization(stack, orgB, people.bea.client, people.dora);
  await joinOrganization(stack, orgC, people.cy.client, people.cleo);
  await joinOrganization(stack, orgC, people.cy.client, people.cole);
  await organizationEventsHandled(stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('adding organization devices', () => {
  it('a member adds one for themselves, linux by default; for someone else 403 with the reason, nothing written', async () => {
    const device = await added(people.max.client, orgA, { name: '  Max laptop ' });
    expect(device).toMatchObject({ name: 'Max laptop', platform: 'linux', user_id: people.max.id, org_id: orgA });
    expect(device.addresses).toHaveLength(2);

    const before = await deviceCount();
    const forMia = await add(people.max.client, orgA, { name: 'For Mia', assignee_id: people.mia.id });
    expect(forMia.statusCode).toBe(403);
    expect(forMia.data.error).toEqual({
      code: 'forbidden',
      message: 'Only owners and admins can add a device for someone else.',
      details: { field: 'assignee_id' },
    });
    expect(await deviceCount()).toBe(before);
  });

  it('owners and admins add for any member; the assignee must be one; the event names who did it', async () => {
    const byAdmin = await added(people.ada.client, orgA, {
      name: 'Mia phone',
      platform: 'android',
      assignee_id: people.mia.id,
    });
    expect(byAdmin).toMatchObject({ user_id: people.mia.id, org_id: orgA, platform: 'android' });
    const byOwner = await added(people.owen.client, orgA, { name: 'Ada desk', assignee_id: people.ada.id });
    expect(byOwner.user_id).toBe(people.ada.id);

    const before = await deviceCount();
    for (const stranger of [people.pia.id, randomUUID()]) {
      const refused = await add(people.owen.client, orgA, { name: 'Stranger', assignee_id: stranger });
      expect(refused.statusCode).toBe(400);
      expect(refused.data.error).toEqual({
        code: 'validation_failed',
        message: 'The assignee must be a member of this organization.',
        details: { field: 'assignee_id' },
      });
    }
    // Bad input is refused before anything is looked at.
    const empty = await add(people.owen.client, orgA, { name: '  ' });
    expect(empty.data.error.message).toBe('Please enter a device name.');
    const platform = await add(people.owen.client, orgA, { name: 'Toaster', platform: 'toaster' });
    expect(platform.data.error.message).toBe('Invalid platform.');
    expect(await deviceCount()).toBe(before);

    const created = await eventually(async () => {
      const events = await provisioningEvents();
      return events.find((e) => e.subject === deviceCreated.subject && e.data.deviceId === byAdmin.id);
    });
    expect(created.data).toMatchObject({ userId: people.mia.id, orgId: orgA, actorId: people.ada.id });
  });

  it('accepts the 5th device of a person and refuses the 6th with its message, counting every organization', async () => {
    // Max has one in A; three more in A and the 5th in B.
    for (const name of ['Two', 'Three', 'Four']) await added(people.max.client, orgA, { name });
    const fifth = await add(people.bea.client, orgB, { name: 'Five', assignee_id: people.max.id });
    expect(fifth.statusCode).toBe(201);
    const before = await deviceCount();
    const sixth = await add(people.max.client, orgA, { name: 'Six' });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.data.error).toEqual({
      code: 'quota_exceeded',
      message:
        'You already have 5/5 organization devices, the most one person may have. Remove one of them to add another.',
      details: { limit: 'per_assignee', count: 5, max: 5 },
    });
    const byOwner = await add(people.owen.client, orgA, { name: 'Six', assignee_id: people.max.id });
    expect(byOwner.data.error.message).toBe(
      'This person already has 5/5 organization devices, the most one person may have. Remove one of theirs to add another.',
    );
    const inB = await add(people.bea.client, orgB, { name: 'Six', assignee_id: people.max.id });
    expect(inB.statusCode).toBe(409);
    expect(await deviceCount()).toBe(before);
    // The quota answer says the same: 5 for Max, wherever they are.
    const quota = (await people.max.client.call('GET', `/api/orgs/${orgA}/devices`)).data.quota;
    expect(quota).toEqual({ per_assignee: 5, by_assignee: { [people.max.id]: 5 }, devices: 6, device_cap: 10 });
  });

  it('accepts devices up to the plan’s count exactly (Business 10: the 10th) and refuses the 11th', async () => {
    for (let i = 1; i <= 5; i++) await added(people.cy.client, orgC, { name: `Cy ${i}` });
    for (let i = 1; i <= 4; i++)
      await added(people.cy.client, orgC, { name: `Cleo ${i}`, assignee_id: people.cleo.id });
    const tenth = await add(people.cleo.client, orgC, { name: 'Cleo 5' });
    expect(tenth.statusCode).toBe(201);
    const before = await deviceCount();
    const eleventh = await add(people.cole.client, orgC, { name: 'Cole 1' });
    expect(eleventh.statusCode).toBe(409);
    expect(eleventh.data.error).toEqual({
      code: 'quota_exceeded',
      message:
        'This organization has 10 of the 10 devices its plan includes. Remove a device or move to a larger Business plan to add more.',
      details: { limit: 'device_cap', devices: 10, device_cap: 10 },
    });
    expect(await deviceCount()).toBe(before);
    // One removed: room for exactly one again.
    const [cleo1] = (await people.cleo.client.call('GET', `/api/orgs/${orgC}/devices`)).data.devices;
    expect((await people.cleo.client.call('DELETE', `/api/devices/${cleo1.id}`)).statusCode).toBe(204);
    expect((await add(people.cole.client, orgC, { name: 'Cole 1' })).statusCode).toBe(201);
    expect((await add(people.cole.client, orgC, { name: 'Cole 2' })).statusCode).toBe(409);
  });

  it('races for the last place: of two adds at once, one gets it', async () => {
    const [cole1] = (await people.cole.client.call('GET', `/api/orgs/${orgC}/devices`)).data.devices;
    await people.cole.client.call('DELETE', `/api/devices/${cole1.id}`);
    const answers = await Promise.all([
      add(people.cole.client, orgC, { name: 'Race 1' }),
      add(people.cy.client, orgC, { name: 'Race 2', assignee_id: people.cole.id }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect((await people.cy.client.call('GET', `/api/orgs/${orgC}/devices`)).data.quota.devices).toBe(10);
  });

  it('races for a person’s 5th device in two organizations at once: one gets it', async () => {
    const mine = [
      await added(people.dora.client, orgA, { name: 'Dora A1' }),
      await added(people.dora.client, orgA, { name: 'Dora A2' }),
      await added(people.dora.client, orgB, { name: 'Dora B1' }),
      await added(people.dora.client, orgB, { name: 'Dora B2' }),
    ];
    const answers = await Promise.all([
      add(people.owen.client, orgA, { name: 'Dora A3', assignee_id: people.dora.id }),
      add(people.bea.client, orgB, { name: 'Dora B3', assignee_id: people.dora.id }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.statusCode === 409)!.data.error.details).toMatchObject({ limit: 'per_assignee' });
    const winner = answers.find((a) => a.statusCode === 201)!.data.device;
    for (const device of [...mine, winner])
      expect((await people.dora.client.call('DELETE', `/api/devices/${device.id}`)).statusCode).toBe(204);
  });
});

describe('what each role may do to an organization device (through /api/devices/:id)', () => {
  type Action = 'rename' | 'suspend' | 'activate' | 'key' | 'config' | 'config-link' | 'peer-info' | 'remove';
  const actions: Action[] = ['rename', 'suspend', 'activate', 'key', 'config', 'config-link', 'peer-info', 'remove'];

  async function act(who: Client, action: Action, id: string): Promise<number> {
    const calls: Record<Action, () => ReturnType<Client['call']>> = {
      rename: () => who.call('PATCH', `/api/devices/${id}`, { name: `Renamed ${randomUUID().slice(0, 4)}` }),
      suspend: () => who.call('PATCH', `/api/devices/${id}`, { is_active: false }),
      activate: () => who.call('PATCH', `/api/devices/${id}`, { is_active: true }),
      key: () => who.call('POST', `/api/devices/${id}/key`, {}),
      config: () => who.call('GET', `/api/device/${id}/config`),
      'config-link': () => who.call('POST', `/api/devices/${id}/config-link`),
      'peer-info': () => who.call('GET', `/api/devices/${id}/peer-info`),
      remove: () => who.call('DELETE', `/api/devices/${id}`),
    };
    return (await calls[action]()).statusCode;
  }

  const allowed = { rename: 200, suspend: 200, activate: 200, key: 200, 'config-link': 200, remove: 204 };
  const expected: Record<string, Record<Action, number>> = {
    // Its person: everything, the configuration (with its private key) included.
    assignee: { ...allowed, config: 200, 'peer-info': 200 },
    // Owners and admins: everything but the configuration, which only its person receives.
    owner: { ...allowed, config: 404, 'config-link': 404, 'peer-info': 404 },
    admin: { ...allowed, config: 404, 'config-link': 404, 'peer-info': 404 },
    // Another member, someone outside the organization: no such device.
    member: Object.fromEntries(actions.map((a) => [a, 404])) as Record<Action, number>,
    outsider: Object.fromEntries(actions.map((a) => [a, 404])) as Record<Action, number>,
    // A platform operator: suspend and activate only.
    operator: {
      ...(Object.fromEntries(actions.map((a) => [a, 404])) as Record<Action, number>),
      suspend: 200,
      activate: 200,
    },
  };

  it.each(Object.keys(expected))('%s on Mia’s device', async (role) => {
    const who = {
      assignee: people.mia,
      owner: people.owen,
      admin: people.ada,
      member: people.max,
      outsider: people.pia,
      operator: people.ops,
    }[role]!;
    const device = await added(people.owen.client, orgA, { name: `Mia ${role}`, assignee_id: people.mia.id });
    const seen: Record<string, number> = {};
    for (const action of actions) seen[action] = await act(who.client, action, device.id);
    expect(seen).toEqual(expected[role]);
    // Those who could not remove it leave it to the owner (Mia has room for 5).
    await people.owen.client.call('DELETE', `/api/devices/${device.id}`);
  });

  it('a member made admin manages every device; made member again, only their own', async () => {
    const device = await added(people.mia.client, orgA, { name: 'Mia watch', platform: 'other' });
    expect(await act(people.max.client, 'suspend', device.id)).toBe(404);
    await changeRole(people.owen.client, orgA, people.max.id, 'admin');
    await organizationEventsHandled(stack);
    expect(await act(people.max.client, 'suspend', device.id)).toBe(200);
    expect(await act(people.max.client, 'config', device.id)).toBe(404);
    await changeRole(people.ada.client, orgA, people.max.id, 'member');
    await organizationEventsHandled(stack);
    expect(await act(people.max.client, 'activate', device.id)).toBe(404);
    await people.mia.client.call('DELETE', `/api/devices/${device.id}`);
  });

  it('mails the configuration to the device’s person, also when an admin added it or asked for a new key', async () => {
    const device = await added(people.ada.client, orgA, {
      name: 'Mia tablet',
      platform: 'ios',
      assignee_id: people.mia.id,
    });
    const mail = await stack.smtp.waitFor((m) => m.subject === 'Your Quietwire configuration for Mia tablet');
    expect((mail.to as { text: string }).text).toContain('mia@example.com');
    expect(mail.attachments.some((a) => a.filename?.endsWith('.conf'))).toBe(true);
    const rotated = await people.owen.client.call('POST', `/api/devices/${device.id}/key`, {});
    expect(rotated.statusCode).toBe(200);
    const again = await stack.smtp.waitFor((m) => m.subject === 'New key for Mia tablet');
    expect((again.to as { text: string }).text).toContain('mia@example.com');
    const sentTo = stack.smtp.messages
      .filter((m) => m.subject?.includes('Mia tablet'))
      .map((m) => (m.to as { text: string }).text);
    expect(sentTo.every((to) => to.includes('mia@example.com'))).toBe(true);
    await people.mia.client.call('DELETE', `/api/devices/${device.id}`);
  });
});

describe('lists, overview and the quota answer', () => {
  it('owners and admins see all the organization’s devices and everyone’s count; members their own', async () => {
    const byOwner = (await people.owen.client.call('GET', `/api/orgs/${orgA}/devices`)).data;
    const byAdmin = (await people.ada.client.call('GET', `/api/orgs/${orgA}/devices`)).data;
    const byMia = (await people.mia.client.call('GET', `/api/orgs/${orgA}/devices`)).data;
    const all = byOwner.devices.map((d: { user_id: string }) => d.user_id);
    expect(new Set(all)).toEqual(new Set([people.max.id, people.mia.id, people.ada.id]));
    expect(byAdmin.devices).toHaveLength(byOwner.devices.length);
    expect(byMia.devices.length).toBeGreaterThan(0);
    expect(byMia.devices.every((d: { user_id: string }) => d.user_id === people.mia.id)).toBe(true);
    // Newest first, each with its status.
    const times = byOwner.devices.map((d: { created_at: string }) => d.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(byOwner.devices[0]).toMatchObject({ is_connected: false, latest_handshake: null, org_id: orgA });

    const counts = (id: string) => byOwner.devices.filter((d: { user_id: string }) => d.user_id === id).length;
    expect(byOwner.quota).toEqual({
      per_assignee: 5,
      by_assignee: {
        [people.owen.id]: 0,
        [people.ada.id]: counts(people.ada.id),
        [people.max.id]: 5,
        [people.mia.id]: counts(people.mia.id),
        [people.dora.id]: 0,
      },
      devices: byOwner.devices.length,
      device_cap: 10,
    });
    // An admin's answer counts everyone as the owner's does.
    expect(byAdmin.quota).toEqual(byOwner.quota);
    expect(byMia.quota).toEqual({
      per_assignee: 5,
      by_assignee: { [people.mia.id]: byMia.devices.length },
      devices: byOwner.devices.length,
      device_cap: 10,
    });
  });

  it('the overview counts the devices in scope: Idle until one connects', async () => {
    const owner = await people.owen.client.call('GET', `/api/orgs/${orgA}/overview`);
    const all = (await people.owen.client.call('GET', `/api/orgs/${orgA}/devices`)).data.devices.length;
    expect(owner.statusCode).toBe(200);
    expect(owner.data).toEqual({ devices: all, connected: 0, vpn_status: 'Idle' });
    const mia = await people.mia.client.call('GET', `/api/orgs/${orgA}/overview`);
    const own = (await people.mia.client.call('GET', `/api/orgs/${orgA}/devices`)).data.devices.length;
    expect(mia.data).toEqual({ devices: own, connected: 0, vpn_status: 'Idle' });
  });

  it('is the same 404 for someone outside the organization as for one that does not exist', async () => {
    const notFound = { code: 'not_found', message: 'Organization not found.' };
    for (const [who, org] of [
      [people.pia.client, orgA],
      [people.ops.client, orgA],
      [people.cy.client, orgA],
      [people.owen.client, randomUUID()],
      [people.owen.client, 'not-an-id'],
    ] as const) {
      for (const path of ['devices', 'overview']) {
        const answer = await who.call('GET', `/api/orgs/${org}/${path}`);
        expect(answer.statusCode, `${path} ${org}`).toBe(404);
        expect(answer.data.error).toEqual(notFound);
      }
      const before = await deviceCount();
      const refused = await add(who, org, { name: 'Intruder' });
      expect(refused.statusCode).toBe(404);
      expect(refused.data.error).toEqual(notFound);
      expect(await deviceCount()).toBe(before);
    }
    expect((await new Client(stack.app).call('GET', `/api/orgs/${orgA}/devices`)).statusCode).toBe(401);
  });
});

describe('a Suspended organization', () => {
  it('suspends its active devices, refuses adds and activations, and brings back only those it held', async () => {
    const list = async () =>
      (await people.cy.client.call('GET', `/api/orgs/${orgC}/devices`)).data.devices as Array<{
        id: string;
        is_active: boolean;
      }>;
    const [kept, ...others] = await list();
    // Suspended by its owner before: it stays off afterwards.
    await people.cy.client.call('PATCH', `/api/devices/${kept!.id}`, { is_active: false });

    // Its plan ends (cancelled in the test portal): identity makes it Suspended, provisioning follows.
    await cancelOrganizationPlan(people.cy.client, orgC);
    await organizationEventsHandled(stack);
    expect(await organizationStatus(people.cleo.client, orgC)).toBe('Suspended');
    expect(await statusKnownToProvisioning(orgC)).toBe(false);
    expect((await list()).every((d) => !d.is_active)).toBe(true);
    const before = await deviceCount();
    const refused = await add(people.cy.client, orgC, { name: 'While suspended' });
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'no_entitlement',
      message:
        'This organization is suspended: its Business plan is not active. Devices can be added and activated again once an owner renews the plan under Billing.',
    });
    expect(await deviceCount()).toBe(before);
    const activate = await people.cy.client.call('PATCH', `/api/devices/${others[0]!.id}`, { is_active: true });
    expect(activate.statusCode).toBe(403);
    expect(activate.data.error.code).toBe('no_entitlement');
    // Suspended by its person while the organization holds it: it stays off afterwards too.
    const [heldButSuspended, ...comeBack] = others;
    const suspendAgain = await people.cy.client.call('PATCH', `/api/devices/${heldButSuspended!.id}`, {
      is_active: false,
    });
    expect(suspendAgain.statusCode).toBe(200);

    // Paid again: the owner buys Business 10 for this organization (the claim's org_id); it is Active again.
    await payAgain(stack, people.cy.client, people.cy.email, orgC);
    await organizationEventsHandled(stack);
    expect(await statusKnownToProvisioning(orgC)).toBe(true);
    const off = [kept!.id, heldButSuspended!.id];
    // Back once both identity's Active and billing's new subscription have reached provisioning.
    const after = await eventually(
      async () => {
        const devices = await list();
        return devices.filter((d) => !off.includes(d.id)).every((d) => d.is_active) ? devices : undefined;
      },
      15_000,
      100,
    );
    expect(after.filter((d) => off.includes(d.id)).map((d) => d.is_active)).toEqual([false, false]);
    expect(comeBack.length).toBe(after.length - 2);
    expect(comeBack.length).toBeGreaterThan(0);
    // Usable again: devices can be added and activated.
    expect((await people.cy.client.call('PATCH', `/api/devices/${kept!.id}`, { is_active: true })).statusCode).toBe(
      200,
    );
  });

  it('when its subscription ends; paid again, they come back; personal devices never follow', async () => {
    const paulsOwn = await people.paul.client.call('POST', '/api/devices', { name: 'Paul home', platform: 'linux' });
    expect(paulsOwn.statusCode).toBe(201);
    const paulsWork = await added(people.paul.client, orgB, { name: 'Paul work' });
    const orgDevices = async () =>
      (await people.bea.client.call('GET', `/api/orgs/${orgB}/devices`)).data.devices as Array<{
        id: string;
        is_active: boolean;
      }>;
    await cancelOrganizationPlan(people.bea.client, orgB);
    await eventually(async () => (await orgDevices()).every((d) => !d.is_active), 15_000, 100);
    const refused = await add(people.bea.client, orgB, { name: 'After the end' });
    expect(refused.data.error.code).toBe('no_entitlement');
    // Paul's personal device is not the organization's business.
    const personal = (await people.paul.client.call('GET', '/api/devices')).data.devices;
    expect(personal).toEqual([expect.objectContaining({ id: paulsOwn.data.device.id, is_active: true })]);

    // Paid again: Bea buys Business 10 for the same organization.
    await payAgain(stack, people.bea.client, people.bea.email, orgB);
    await eventually(async () => (await orgDevices()).every((d) => d.is_active), 15_000, 100);
    expect((await orgDevices()).some((d) => d.id === paulsWork.id)).toBe(true);
    expect((await people.bea.client.call('GET', '/api/orgs')).data.organizations).toHaveLength(1);

    // And the other way: Paul's personal plan ends; his organization device stays on.
    const own = (await people.paul.client.call('GET', '/api/billing')).data.subscription.id;
    await people.paul.client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: own });
    await eventually(
      async () => (await people.paul.client.call('GET', '/api/devices')).data.devices[0].is_active === false,
      15_000,
      100,
    );
    expect((await orgDevices()).find((d) => d.id === paulsWork.id)?.is_active).toBe(true);
  });
});

describe('leaving an organization', () => {
  it('removes the person’s devices there (peers gone, addresses free) and nothing else of theirs', async () => {
    const mine = (await people.mia.client.call('GET', `/api/orgs/${orgA}/devices`)).data.devices as Array<{
      id: string;
      public_key: string;
      addresses: string[];
    }>;
    expect(mine.length).toBeGreaterThan(0);
    const maxBefore = (await people.owen.client.call('GET', `/api/orgs/${orgA}/devices`)).data.devices.filter(
      (d: { user_id: string }) => d.user_id === people.max.id,
    ).length;

    await removeMember(people.owen.client, orgA, people.mia.id);
    await organizationEventsHandled(stack);
    const left = (await people.owen.client.call('GET', `/api/orgs/${orgA}/devices`)).data.devices;
    expect(left.some((d: { user_id: string }) => d.user_id === people.mia.id)).toBe(false);
    expect(left.filter((d: { user_id: string }) => d.user_id === people.max.id)).toHaveLength(maxBefore);
    expect((await people.mia.client.call('GET', `/api/orgs/${orgA}/devices`)).statusCode).toBe(404);
    for (const device of mine)
      expect((await people.mia.client.call('GET', `/api/device/${device.id}/config`)).statusCode).toBe(404);

    const removed = await eventually(async () => {
      const events = (await provisioningEvents()).filter((e) => e.subject === deviceRemoved.subject);
      const ids = mine.map((d) => d.id);
      const found = events.filter((e) => ids.includes(e.data.deviceId as string));
      return found.length === mine.length ? found : undefined;
    });
    expect(removed.every((e) => e.data.actorId === people.owen.id && e.data.orgId === orgA)).toBe(true);

    // Their addresses are free again: no device holds them, and the next device takes the lowest free one.
    const ipv4 = (device: { addresses: string[] }) => device.addresses.find((a) => !a.includes(':'))!.split('/')[0]!;
    const asNumber = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
    const held = await provisioningDb().selectFrom('devices').select('ipv4').execute();
    for (const device of mine) expect(held.map((row) => row.ipv4)).not.toContain(ipv4(device));
    const next = await added(people.ada.client, orgA, { name: 'After Mia' });
    expect(asNumber(ipv4(next))).toBeLessThanOrEqual(Math.min(...mine.map((d) => asNumber(ipv4(d)))));
  });

  it('leaving on one’s own removes one’s devices there, as one’s own act; the personal device stays', async () => {
    const work = (await people.paul.client.call('GET', `/api/orgs/${orgB}/devices`)).data.devices as Array<{
      id: string;
    }>;
    expect(work.length).toBeGreaterThan(0);
    const personal = (await people.paul.client.call('GET', '/api/devices')).data.devices as Array<{ id: string }>;
    expect(personal).toHaveLength(1);

    await leaveOrganization(people.paul.client, orgB);
    await organizationEventsHandled(stack);
    expect((await people.paul.client.call('GET', `/api/orgs/${orgB}/devices`)).statusCode).toBe(404);
    const inB = (await people.bea.client.call('GET', `/api/orgs/${orgB}/devices`)).data.devices;
    expect(inB.some((d: { user_id: string }) => d.user_id === people.paul.id)).toBe(false);
    const removed = await eventually(async () => {
      const events = (await provisioningEvents()).filter((e) => e.subject === deviceRemoved.subject);
      const found = events.filter((e) => work.some((d) => d.id === e.data.deviceId));
      return found.length === work.length ? found : undefined;
    });
    expect(removed.every((e) => e.data.actorId === people.paul.id && e.data.orgId === orgB)).toBe(true);
    expect(
      (await people.paul.client.call('GET', '/api/devices')).data.devices.map((d: { id: string }) => d.id),
    ).toEqual(personal.map((d) => d.id));
  });
});

describe('an organization of more than 1,200 devices, paged (issue #24)', () => {
  type Listed = { id: string; user_id: string; created_at: string };
  const seeded = { owner: 1_240, member: 7 };
  const total = seeded.owner + seeded.member;
  let orgD: string;
  let dan: { client: Client; id: string; email: string };
  let mo: { client: Client; id: string; email: string };
  /** The organization's device ids as the list orders them: newest first, then by id. */
  let ordered: string[];

  beforeAll(async () => {
    dan = await person('dan@example.com', 'business250');
    mo = await person('mo@example.com');
    orgD = await ownOrganization(dan.client);
    await joinOrganization(stack, orgD, dan.client, mo);
    await organizationEventsHandled(stack);
    const db = provisioningDb() as Kysely<ProvisioningDatabase>;
    const nodeId = await seedNode(db, 'org-paging-node', 60);
    await seedDevices(db, nodeId, seeded.owner, { userId: dan.id, orgId: orgD });
    await seedDevices(db, nodeId, seeded.member, { userId: mo.id, orgId: orgD }, 'Laptop');
    // 400 of them made in the same instant: pages must still neither skip nor repeat one.
    await sql`update devices set created_at = now() - interval '1 hour'
               where id in (select id from devices where org_id = ${orgD}::uuid order by name limit 400)`.execute(db);
    ordered = (
      await sql<{ id: string }>`select id from devices where org_id = ${orgD}::uuid
                                 order by created_at desc, id desc`.execute(db)
    ).rows.map((row) => row.id);
    expect(ordered).toHaveLength(total);
  }, 120_000);

  const list = (who: Client, query: string) => who.call('GET', `/api/orgs/${orgD}/devices?${query}`);

  it('every page answers, far below the bus’s 1 MB; together they are every device once, in order; the quota is the whole organization’s', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 100); page++) {
      const answer = await list(dan.client, `page=${page}&per_page=100`);
      expect(answer.statusCode, `page ${page}`).toBe(200);
      // The gateway's answer is provisioning's bus answer as it came: 100 devices take about a tenth of 1 MB.
      expect(Buffer.byteLength(answer.body)).toBeLessThan(200_000);
      expect(answer.data).toMatchObject({ total, page, per_page: 100 });
      expect(answer.data.quota).toEqual({
        per_assignee: 5,
        by_assignee: { [dan.id]: seeded.owner, [mo.id]: seeded.member },
        devices: total,
        device_cap: 250,
      });
      seen.push(...answer.data.devices.map((d: Listed) => d.id));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(ordered);
    const past = await list(dan.client, 'page=14&per_page=100');
    expect(past.data).toMatchObject({ devices: [], total, page: 14 });
  });

  it('answers the first 50 when not asked for a page; by person and by a part of the name', async () => {
    const first = await dan.client.call('GET', `/api/orgs/${orgD}/devices`);
    expect(first.data).toMatchObject({ total, page: 1, per_page: 50 });
    expect(first.data.devices.map((d: Listed) => d.id)).toEqual(ordered.slice(0, 50));

    const mos = await list(dan.client, `assignee_id=${mo.id.toUpperCase()}`);
    expect(mos.data.total).toBe(seeded.member);
    expect(mos.data.devices.every((d: Listed) => d.user_id === mo.id)).toBe(true);
    expect((await list(dan.client, 'q=laptop')).data.total).toBe(seeded.member);
    expect((await list(dan.client, 'q=Device%20123')).data.devices.map((d: { name: string }) => d.name).sort()).toEqual(
      ['Device 123', 'Device 1230', 'Device 1231', 'Device 1232', 'Device 1233', 'Device 1234', 'Device 1235'].concat([
        'Device 1236',
        'Device 1237',
        'Device 1238',
        'Device 1239',
      ]),
    );
    // `%` and `_` are the characters themselves.
    expect((await list(dan.client, 'q=%25')).data).toMatchObject({ devices: [], total: 0 });
    expect((await list(dan.client, 'q=Device_1')).data.total).toBe(0);
    expect((await list(dan.client, `assignee_id=${mo.id}&q=Device`)).data.total).toBe(0);
  });

  it('a member pages through their own devices only, and finds nobody else’s', async () => {
    const mine: string[] = [];
    for (const page of [1, 2, 3]) {
      const answer = await list(mo.client, `page=${page}&per_page=3`);
      expect(answer.statusCode).toBe(200);
      expect(answer.data).toMatchObject({ total: seeded.member, page, per_page: 3 });
      expect(answer.data.devices).toHaveLength(page < 3 ? 3 : 1);
      expect(answer.data.quota).toEqual({
        per_assignee: 5,
        by_assignee: { [mo.id]: seeded.member },
        devices: total,
        device_cap: 250,
      });
      mine.push(...answer.data.devices.map((d: Listed) => d.id));
    }
    const expected = (
      await sql<{ id: string }>`select id from devices where org_id = ${orgD}::uuid and user_id = ${mo.id}::uuid
                                 order by created_at desc, id desc`.execute(provisioningDb())
    ).rows.map((row) => row.id);
    expect(mine).toEqual(expected);
    const others = await list(mo.client, `assignee_id=${dan.id}`);
    expect(others.data).toMatchObject({ devices: [], total: 0 });
    expect(await mo.client.call('GET', `/api/orgs/${orgD}/overview`)).toMatchObject({
      data: { devices: seeded.member },
    });
  });

  it('the overview counts every device of the organization, not a page', async () => {
    const connected = (
      await sql<{ n: number }>`select count(*)::int as n from devices
                                where org_id = ${orgD}::uuid and latest_handshake is not null`.execute(provisioningDb())
    ).rows[0]!.n;
    expect(connected).toBeGreaterThan(0);
    const overview = await dan.client.call('GET', `/api/orgs/${orgD}/overview`);
    expect(overview.data).toEqual({ devices: total, connected, vpn_status: 'Online' });
  });

  it('refuses a bad page, size, person or search with 400 validation_failed, for anyone', async () => {
    for (const query of [
      'page=0',
      'page=-1',
      'page=two',
      'per_page=0',
      'per_page=101',
      'per_page=1.5',
      'assignee_id=not-an-id',
      `q=${'x'.repeat(101)}`,
    ]) {
      for (const who of [dan.client, mo.client]) {
        const answer = await list(who, query);
        expect(answer.statusCode, query).toBe(400);
        expect(answer.data.error.code, query).toBe('validation_failed');
      }
    }
  });
});
