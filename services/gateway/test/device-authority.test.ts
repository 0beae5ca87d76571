import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { desiredPeersRpc, fairUseDeviceCeiling } from '@qw/contracts';
import { generateKeyPair } from '@qw/wireguard';
import { type Client, startStack, type Stack } from './support/stack.ts';
import { confirmedPerson, customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';
import { joinOrganization, organizationEventsHandled, ownOrganization } from './support/organizations.ts';

/**
 * Issue #20 "Authority", for devices: a suspension remembers its level (operator > organization
 * owner/admin > the device's person) and only that level or a higher one lifts it; an admin of an
 * organization does nothing to its owner's devices; only the device's person chooses its key; a
 * public key is one device's; the personal fair-use ceiling holds under parallel requests.
 */
let stack: Stack;
const password = 'correct horse battery';
const nodeName = 'authority-node';
let address = 10;
type Person = { client: Client; id: string; email: string };
const people = {} as Record<'owen' | 'ada' | 'max' | 'paul' | 'ops', Person>;
let orgId: string;

const provisioningDb = () => stack.services.provisioning!.db;
const deviceRow = (id: string) =>
  provisioningDb().selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const deviceCount = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from devices`.execute(provisioningDb())).rows[0]!.n;

const person = (email: string, plan?: string): Promise<Person> =>
  confirmedPerson(stack, email, plan ? { plan } : { address: `198.51.100.${address++}` }, password);

/** The public keys the node is to run, as it asks for them itself (every page). */
async function desiredKeys(): Promise<string[]> {
  const { rpc } = await stack.connectNode(nodeName);
  const keys: string[] = [];
  let after: string | null = null;
  do {
    const page: { peers: Array<{ public_key: string }>; next: string | null } = await rpc.request(
      desiredPeersRpc,
      { limit: 500, ...(after ? { after } : {}) },
      undefined,
      { params: { node: nodeName } },
    );
    keys.push(...page.peers.map((peer) => peer.public_key));
    after = page.next;
  } while (after);
  return keys;
}

const setActive = (who: Person, id: string, isActive: boolean) =>
  who.client.call('PATCH', `/api/devices/${id}`, { is_active: isActive });
const operate = (action: 'suspend' | 'activate', id: string) =>
  people.ops.client.call('POST', '/api/admin-device', { action, deviceId: id });

async function personalDevice(who: Person, name: string) {
  const response = await who.client.call('POST', '/api/devices', { name, platform: 'linux' });
  if (response.statusCode !== 201) throw new Error(`add: ${response.statusCode} ${response.body}`);
  return response.data.device as { id: string; public_key: string };
}

async function orgDevice(by: Person, name: string, assignee: Person) {
  const body = { name, ...(assignee.id === by.id ? {} : { assignee_id: assignee.id }) };
  const response = await by.client.call('POST', `/api/orgs/${orgId}/devices`, body);
  if (response.statusCode !== 201) throw new Error(`add: ${response.statusCode} ${response.body}`);
  return response.data.device as { id: string; public_key: string };
}

beforeAll(async () => {
  stack = await startStack({ label: 'authority', adminEmails: ['ops@quietwire.test'], extra: deviceServices });
  await registerTestNode(stack, nodeName);
  people.owen = await person('owen@example.com', 'business10');
  people.paul = await person('paul@example.com', 'personal');
  people.ada = await person('ada@example.com');
  people.max = await person('max@example.com');
  people.ops = await person('ops@quietwire.test');
  orgId = await ownOrganization(people.owen.client);
  await joinOrganization(stack, orgId, people.owen.client, people.ada, 'admin');
  await joinOrganization(stack, orgId, people.owen.client, people.max);
  await organizationEventsHandled(stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('a suspension is lifted only by its level or a higher one', () => {
  it("an operator's suspension: its person is refused 403 and the peer stays off; lifted, the person toggles again", async () => {
    const device = await personalDevice(people.paul, 'Paul laptop');
    expect((await operate('suspend', device.id)).statusCode).toBe(200);
    const before = await deviceRow(device.id);

    const refused = await setActive(people.paul, device.id, true);
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'suspended_by_higher_level',
      message: 'Quietwire support suspended this device. Contact support to have it activated again.',
    });
    // Nor may the person take the suspension over as their own, to lift it next.
    expect((await setActive(people.paul, device.id, false)).statusCode).toBe(403);
    expect(await deviceRow(device.id)).toEqual(before);
    expect(before).toMatchObject({ is_active: false, suspended_by: 'operator' });
    expect(await desiredKeys()).not.toContain(device.public_key);
    const listed = (await people.paul.client.call('GET', '/api/devices')).data.devices;
    expect(listed.find((d: { id: string }) => d.id === device.id)).toMatchObject({
      is_active: false,
      suspended_by: 'operator',
    });

    expect((await operate('activate', device.id)).statusCode).toBe(200);
    expect(await desiredKeys()).toContain(device.public_key);
    const off = await setActive(people.paul, device.id, false);
    expect(off.statusCode).toBe(200);
    expect(off.data.device).toMatchObject({ is_active: false, suspended_by: 'person' });
    expect(await desiredKeys()).not.toContain(device.public_key);
    // A suspended device's configuration is not given out: no file, QR code or link.
    for (const answer of [
      await people.paul.client.call('GET', `/api/device/${device.id}/config`),
      await people.paul.client.call('GET', `/api/device/${device.id}/config?format=qr`),
      await people.paul.client.call('POST', `/api/devices/${device.id}/config-link`),
    ]) {
      expect(answer.statusCode).toBe(409);
      expect(answer.data.error.message).toContain('This device is suspended');
    }
    expect((await setActive(people.paul, device.id, true)).data.device).toMatchObject({
      is_active: true,
      suspended_by: null,
    });
    expect(await desiredKeys()).toContain(device.public_key);
    expect((await people.paul.client.call('GET', `/api/device/${device.id}/config`)).statusCode).toBe(200);
  });

  it('an operator suspending a device its person already switched off takes the suspension over', async () => {
    const device = await personalDevice(people.paul, 'Paul phone');
    expect((await setActive(people.paul, device.id, false)).statusCode).toBe(200);
    expect((await operate('suspend', device.id)).statusCode).toBe(200);
    expect(await deviceRow(device.id)).toMatchObject({ is_active: false, suspended_by: 'operator' });
    expect((await setActive(people.paul, device.id, true)).statusCode).toBe(403);
    expect(await desiredKeys()).not.toContain(device.public_key);
  });

  it("an organization admin's suspension: the member is refused, an owner or admin lifts it", async () => {
    const device = await orgDevice(people.ada, 'Max laptop', people.max);
    expect((await setActive(people.ada, device.id, false)).statusCode).toBe(200);
    const before = await deviceRow(device.id);
    expect(before).toMatchObject({ is_active: false, suspended_by: 'organization' });

    const refused = await setActive(people.max, device.id, true);
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'suspended_by_higher_level',
      message:
        "Your organization's admin suspended this device. Ask an owner or admin of the organization to activate it.",
    });
    expect(await deviceRow(device.id)).toEqual(before);
    expect(await desiredKeys()).not.toContain(device.public_key);
    const seenByMax = (await people.max.client.call('GET', `/api/orgs/${orgId}/devices`)).data.devices;
    expect(seenByMax.find((d: { id: string }) => d.id === device.id)).toMatchObject({ suspended_by: 'organization' });

    expect((await setActive(people.owen, device.id, true)).statusCode).toBe(200);
    expect(await desiredKeys()).toContain(device.public_key);
    expect((await setActive(people.owen, device.id, false)).statusCode).toBe(200);
    expect((await setActive(people.ada, device.id, true)).statusCode).toBe(200);
    // Max's own suspension is Max's to lift, and a manager's too.
    expect((await setActive(people.max, device.id, false)).data.device.suspended_by).toBe('person');
    expect((await setActive(people.max, device.id, true)).statusCode).toBe(200);
  });

  it("an operator's suspension of an organization device: neither admin nor owner lifts it", async () => {
    const device = await orgDevice(people.owen, 'Max desktop', people.max);
    expect((await operate('suspend', device.id)).statusCode).toBe(200);
    for (const who of [people.max, people.ada, people.owen]) {
      const refused = await setActive(who, device.id, true);
      expect(refused.statusCode).toBe(403);
      expect(refused.data.error.code).toBe('suspended_by_higher_level');
    }
    expect(await deviceRow(device.id)).toMatchObject({ is_active: false, suspended_by: 'operator' });
    const adminList = await people.ops.client.call('GET', `/api/admin/devices?q=Max%20desktop`);
    expect(adminList.data.rows[0]).toMatchObject({ id: device.id, suspended_by: 'operator' });
    expect((await operate('activate', device.id)).statusCode).toBe(200);
    expect((await deviceRow(device.id)).suspended_by).toBeNull();
  });
});

describe("an organization admin and the owner's devices", () => {
  it('refuses every change an admin makes to a device assigned to the owner, writing nothing', async () => {
    const device = await orgDevice(people.owen, 'Owen laptop', people.owen);
    const before = await deviceRow(device.id);
    const adminKey = generateKeyPair().publicKey;
    const calls = {
      takeover: () => people.ada.client.call('POST', `/api/devices/${device.id}/key`, { public_key: adminKey }),
      key: () => people.ada.client.call('POST', `/api/devices/${device.id}/key`, {}),
      rename: () => people.ada.client.call('PATCH', `/api/devices/${device.id}`, { name: 'Mine now' }),
      suspend: () => people.ada.client.call('PATCH', `/api/devices/${device.id}`, { is_active: false }),
      rotation: () => people.ada.client.call('PATCH', `/api/devices/${device.id}/key-rotation`, { every_days: 30 }),
      remove: () => people.ada.client.call('DELETE', `/api/devices/${device.id}`),
      config: () => people.ada.client.call('GET', `/api/device/${device.id}/config`),
    };
    const seen: Record<string, unknown> = {};
    // One after another, the take-over first: each would change the device were it allowed.
    for (const [what, call] of Object.entries(calls)) {
      const response = await call();
      seen[what] = [response.statusCode, response.data?.error?.code];
    }
    expect(seen).toEqual({
      takeover: [403, 'forbidden'],
      key: [403, 'forbidden'],
      rename: [403, 'forbidden'],
      suspend: [403, 'forbidden'],
      rotation: [403, 'forbidden'],
      remove: [403, 'forbidden'],
      config: [403, 'forbidden'],
    });
    expect(await deviceRow(device.id)).toEqual(before);
    expect(await desiredKeys()).not.toContain(adminKey);
  });

  it("nobody but the device's person chooses its key: an owner may ask for a new one, not bring it", async () => {
    const device = await orgDevice(people.owen, 'Max tablet', people.max);
    const refused = await people.owen.client.call('POST', `/api/devices/${device.id}/key`, {
      public_key: generateKeyPair().publicKey,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'forbidden',
      message: "Only the device's person can choose its key. Request a new key without one instead.",
    });
    expect((await deviceRow(device.id)).public_key).toBe(device.public_key);
    expect((await people.owen.client.call('POST', `/api/devices/${device.id}/key`, {})).statusCode).toBe(200);
    const own = await people.max.client.call('POST', `/api/devices/${device.id}/key`, {
      public_key: generateKeyPair().publicKey,
    });
    expect(own.statusCode).toBe(200);
    // Nor does anyone bring a key for a device they add for someone else.
    const before = await deviceCount();
    const forMax = await people.ada.client.call('POST', `/api/orgs/${orgId}/devices`, {
      name: 'Max watch',
      assignee_id: people.max.id,
      public_key: generateKeyPair().publicKey,
    });
    expect(forMax.statusCode).toBe(403);
    expect(forMax.data.error.code).toBe('forbidden');
    expect(await deviceCount()).toBe(before);
  });
});

describe('a public key is one device’s', () => {
  it('answers 409 public_key_in_use on a second device, an organization device and a key request, writing nothing', async () => {
    const key = generateKeyPair().publicKey;
    const first = await people.paul.client.call('POST', '/api/devices', {
      name: 'Browser key',
      platform: 'linux',
      public_key: key,
    });
    expect(first.statusCode).toBe(201);
    const other = await personalDevice(people.paul, 'Other');
    const before = { count: await deviceCount(), other: await deviceRow(other.id) };
    const inUse = {
      code: 'public_key_in_use',
      message: 'This public key is already used by another device. Make a new key pair for each device.',
      details: { field: 'public_key' },
    };
    const again = await people.paul.client.call('POST', '/api/devices', {
      name: 'Again',
      platform: 'linux',
      public_key: key,
    });
    expect([again.statusCode, again.data.error]).toEqual([409, inUse]);
    const inOrg = await people.max.client.call('POST', `/api/orgs/${orgId}/devices`, { name: 'Max', public_key: key });
    expect([inOrg.statusCode, inOrg.data.error]).toEqual([409, inUse]);
    const rekey = await people.paul.client.call('POST', `/api/devices/${other.id}/key`, { public_key: key });
    expect([rekey.statusCode, rekey.data.error]).toEqual([409, inUse]);
    expect(await deviceCount()).toBe(before.count);
    expect(await deviceRow(other.id)).toEqual(before.other);
  });
});

describe('the personal fair-use ceiling under parallel requests', () => {
  it('of 6 parallel adds with room for 2, exactly 2 succeed and 4 are refused 409', async () => {
    const client = await customerWithPlan(stack, 'crowd@example.com');
    const first = await client.call('POST', '/api/devices', { name: 'First', platform: 'linux' });
    expect(first.statusCode).toBe(201);
    const userId = first.data.device.user_id as string;
    const filler = fairUseDeviceCeiling - 3;
    await sql`insert into devices (id, user_id, org_id, name, platform, is_active)
              select gen_random_uuid(), ${userId}, null, 'Filler ' || n, 'linux', false
              from generate_series(1, ${filler}::int) n`.execute(provisioningDb());
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.call('POST', '/api/devices', { name: `Race ${i}`, platform: 'linux' }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    const owned = await sql<{ n: number }>`select count(*)::int as n from devices where user_id = ${userId}`.execute(
      provisioningDb(),
    );
    expect(owned.rows[0]!.n).toBe(fairUseDeviceCeiling);
  });
});
