import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activePlanRpc,
  advanceProvisioningClockRpc,
  billingEvents,
  createDeviceRpc,
  createOrgDeviceRpc,
  desiredPeersRpc,
  identityEvents,
  latestTelemetryRpc,
  listDevicesRpc,
  listOrgDevicesRpc,
  mailAddressRpc,
  memberJoined,
  memberLeft,
  membershipRpc,
  organizationStatusChanged,
  registerNodeRpc,
  reportNodeRpc,
  subscriptionActivated,
  setKeyRotationRpc,
  subscriptionCanceled,
  updateDeviceRpc,
} from '@qw/contracts';
import { callerTokenSigner, endpoint, RpcClient, refuseEveryCallerToken } from '@qw/platform';
import { eventually, keepReporting, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import type { BusConnection, RunningService } from '@qw/platform';
import type { ProvisioningDatabase } from '../src/database.ts';
import { provisioningService } from '../src/app.ts';

/**
 * The provisioning service on its own: a database and a NATS server of this file (the product's
 * permissions on), billing's and identity's streams declared as their owners declare them, their
 * subscription and organization events published for real, and its RPCs asked as the gateway and
 * a node agent ask them. The owners it may ask between transactions (billing's active plan,
 * identity's membership and mail address, telemetry's latest status) are answered by small test
 * doubles that say what the events published so far say (an owner's answer corrects provisioning's
 * copy, so a double must not contradict them). The end-to-end device flows stay in the gateway's tests.
 *
 * - Ann pays Personal, adds a laptop, turns it off and on; her plan ends and the laptop is suspended.
 * - Org "Acme" on business10: owner Olga, member Max; Olga adds a device for Max, Max leaves and it goes.
 */
const nodeName = `pv-${randomBytes(3).toString('hex')}`;
const [ann, olga, max, orgId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const [annPlan, orgPlan] = [randomUUID(), randomUUID()];

let alone: ServiceAlone;
let provisioning: RunningService<ProvisioningDatabase>;
let rpc: RpcClient;
let node: RpcClient;
let nodeBus: BusConnection;
/** What billing and identity would answer: the plans and memberships the published events say. */
const plans = new Map<string, { plan_code: string; status: string; subscription_id: string }>();
const roles = new Map<string, 'owner' | 'admin' | 'member'>();
const sign = callerTokenSigner(testCallerKeys.privateKey);
const person = (userId: string, accountType = 'personal') =>
  sign({ userId, accountType, isAdmin: false, emailVerified: true } as Parameters<typeof sign>[0]);

const subscription = (
  subscriptionId: string,
  owner: { userId: string | null; orgId: string | null },
  planCode: string,
) => ({
  subscriptionId,
  ...owner,
  planCode,
  status: 'active',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
});

async function desiredKeys(): Promise<string[]> {
  const { peers } = await node.request(desiredPeersRpc, {}, undefined, { params: { node: nodeName } });
  return peers.map((peer) => peer.public_key);
}
const myDevices = async (userId: string) => (await rpc.request(listDevicesRpc, {}, person(userId))).devices;

beforeAll(async () => {
  // The streams provisioning reads but does not own, as billing and identity declare them at their start.
  alone = await startServiceAlone('provisioning-service', { billing: billingEvents, identity: identityEvents });
  await alone.serve(
    'billing',
    [endpoint(activePlanRpc, async (data) => ({ plan: plans.get(data.org_id ?? data.user_id ?? '') ?? null }))],
    refuseEveryCallerToken,
  );
  await alone.serve(
    'identity',
    [
      endpoint(membershipRpc, async (data) => ({
        role: roles.get(`${data.org_id}:${data.user_id}`) ?? null,
        org_active: data.org_id === orgId,
        plan: data.org_id === orgId ? 'business10' : null,
      })),
      endpoint(mailAddressRpc, async () => ({ email: 'nobody@quietwire.test', verified: false })),
    ],
    refuseEveryCallerToken,
  );
  await alone.serve('telemetry', [endpoint(latestTelemetryRpc, async () => ({ devices: [] }))], refuseEveryCallerToken);
  provisioning = await alone.launch(
    provisioningService({
      PRIVATE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      VPN_DNS: '10.64.0.1',
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      PROVISIONING_TEST_CLOCK: true,
      NODE_ENV: 'test',
    }),
  );
  rpc = new RpcClient(await alone.connect('gateway'));
  nodeBus = await alone.connect((await alone.bus.addNode(nodeName)).NATS_USER);
  node = new RpcClient(nodeBus);
}, 120_000);

afterAll(() => alone?.stop());

describe('a node registers and reads its desired peers', () => {
  it('gets its addressing, and no peers while nobody has a device', async () => {
    const addressing = await node.request(
      registerNodeRpc,
      {
        region: 'eu-test',
        endpoint: '198.51.100.7:51820',
        public_key: randomBytes(32).toString('base64'),
        ip: '198.51.100.7',
        tags: [],
      },
      undefined,
      { params: { node: nodeName } },
    );
    expect(addressing.dns).toEqual(['10.64.0.1']);
    expect(addressing.ipv4_cidr).toMatch(/\/\d+$/);
    expect(await desiredKeys()).toEqual([]);
  });

  it('records the city and capacity its agent says (NODE_CITY, NODE_CAPACITY), and keeps them when it says none', async () => {
    const stored = () =>
      provisioning.db
        .selectFrom('nodes')
        .select(['region', 'city', 'capacity'])
        .where('name', '=', nodeName)
        .executeTakeFirstOrThrow();
    const announce = (extra: { city?: string; capacity?: number }) =>
      node.request(
        registerNodeRpc,
        {
          region: 'ap-southeast',
          endpoint: '198.51.100.7:51820',
          public_key: randomBytes(32).toString('base64'),
          ip: '198.51.100.7',
          tags: ['gaming'],
          ...extra,
        },
        undefined,
        { params: { node: nodeName } },
      );
    await announce({ city: 'Singapore', capacity: 250 });
    expect(await stored()).toEqual({ region: 'asia', city: 'Singapore', capacity: 250 });
    await announce({});
    expect(await stored()).toEqual({ region: 'asia', city: 'Singapore', capacity: 250 });
    await expect(announce({ capacity: 0 })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('reports: seen now, with its agent version and start; a name that never registered is refused', async () => {
    const seen = () =>
      provisioning.db
        .selectFrom('nodes')
        .select(['last_seen_at', 'agent_version', 'agent_started_at'])
        .where('name', '=', nodeName)
        .executeTakeFirstOrThrow();
    await provisioning.db
      .updateTable('nodes')
      .set({ last_seen_at: new Date(Date.now() - 60_000) })
      .where('name', '=', nodeName)
      .execute();
    const before = Date.now();
    const startedAt = '2027-02-01T10:00:00.000Z';
    await node.request(reportNodeRpc, { agent_version: '1.2.3', started_at: startedAt, peers: 0 }, undefined, {
      params: { node: nodeName },
    });
    const row = await seen();
    expect(new Date(row.last_seen_at!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.agent_version).toBe('1.2.3');
    expect(new Date(row.agent_started_at!).toISOString()).toBe(startedAt);

    const stranger = `${nodeName}-x`;
    const strangerRpc = new RpcClient(await alone.connect((await alone.bus.addNode(stranger)).NATS_USER));
    await expect(
      strangerRpc.request(reportNodeRpc, { agent_version: '1.2.3', started_at: startedAt, peers: 0 }, undefined, {
        params: { node: stranger },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    // Its desired peers too, whichever page it asks for.
    const someKey = `${'A'.repeat(43)}=`;
    for (const input of [{}, { after: someKey }, { public_keys: [someKey] }])
      await expect(
        strangerRpc.request(desiredPeersRpc, input, undefined, { params: { node: stranger } }),
      ).rejects.toMatchObject({ code: 'not_found' });

    // A reconcile's first page counts as being seen; a later page, or one peer's key, does not.
    const backdate = () =>
      provisioning.db
        .updateTable('nodes')
        .set({ last_seen_at: new Date(Date.now() - 60_000) })
        .where('name', '=', nodeName)
        .execute();
    await backdate();
    for (const input of [{ after: someKey }, { public_keys: [someKey] }]) {
      await node.request(desiredPeersRpc, input, undefined, { params: { node: nodeName } });
      expect(new Date((await seen()).last_seen_at!).getTime()).toBeLessThan(before - 30_000);
    }
    const beforePage = Date.now();
    await node.request(desiredPeersRpc, {}, undefined, { params: { node: nodeName } });
    expect(new Date((await seen()).last_seen_at!).getTime()).toBeGreaterThanOrEqual(beforePage - 1000);
    // The device tests below place on this node, however long they run.
    keepReporting(nodeBus, nodeName);
  });
});

describe('personal devices follow billing’s subscription events', () => {
  it('refuses a device before any plan, then adds one once the subscription is activated', async () => {
    await expect(
      rpc.request(createDeviceRpc, { name: 'laptop', platform: 'linux' }, person(ann)),
    ).rejects.toMatchObject({ code: 'no_entitlement' });
    plans.set(ann, { plan_code: 'personal', status: 'active', subscription_id: annPlan });
    await alone.publish(subscriptionActivated, subscription(annPlan, { userId: ann, orgId: null }, 'personal'));
    const device = await eventually(
      async () => (await rpc.request(createDeviceRpc, { name: 'laptop', platform: 'linux' }, person(ann))).device,
      20_000,
      100,
    );
    expect(device).toMatchObject({ name: 'laptop', is_active: true, user_id: ann, org_id: null });
    expect(device.node?.name).toBe(nodeName);
    expect(await desiredKeys()).toEqual([device.public_key]);
    expect((await myDevices(ann)).map((d) => d.id)).toEqual([device.id]);
    // Nobody else sees it.
    expect(await myDevices(olga)).toEqual([]);
  });

  it('suspends and activates a device through its RPC: the node is told to drop and take the peer', async () => {
    const [laptop] = await myDevices(ann);
    const off = await rpc.request(updateDeviceRpc, { device_id: laptop!.id, is_active: false }, person(ann));
    expect(off.device.is_active).toBe(false);
    expect(await desiredKeys()).toEqual([]);
    const on = await rpc.request(updateDeviceRpc, { device_id: laptop!.id, is_active: true }, person(ann));
    expect(on.device.is_active).toBe(true);
    expect(await desiredKeys()).toEqual([laptop!.public_key]);
  });

  it('rotates every due key when the test clock moves, even one whose row a handshake holds at that moment', async () => {
    const [laptop] = await myDevices(ann);
    await rpc.request(setKeyRotationRpc, { device_id: laptop!.id, every_days: 30 }, person(ann));
    // Telemetry's handshakes are being recorded on the laptop's row (handshakes-observed) just as
    // the rotation pass runs: the pass must wait for that, not leave the key to the next pass.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = provisioning.db.transaction().execute(async (tx) => {
      await tx.updateTable('devices').set({ latest_handshake: new Date() }).where('id', '=', laptop!.id).execute();
      locked();
      await held;
    });
    await lockTaken;
    const advanced = new RpcClient(alone.admin).request(advanceProvisioningClockRpc, { hours: 31 * 24 });
    setTimeout(release, 300);
    await advanced;
    await holding;
    const [rotated] = await myDevices(ann);
    expect(rotated!.public_key).not.toBe(laptop!.public_key);
    expect(await desiredKeys()).toEqual(expect.arrayContaining([laptop!.public_key, rotated!.public_key]));
  });

  it('suspends the devices when the subscription ends (billing.subscription.canceled)', async () => {
    plans.delete(ann);
    await alone.publish(subscriptionCanceled, {
      ...subscription(annPlan, { userId: ann, orgId: null }, 'personal'),
      status: 'canceled',
      canceledAt: new Date().toISOString(),
    });
    await eventually(async () => (await myDevices(ann))[0]?.is_active === false, 20_000, 100);
    expect(await desiredKeys()).toEqual([]);
  });
});

describe('organization devices follow identity’s organization events', () => {
  it('the owner adds a device for a member; the member leaves and the device goes', async () => {
    await alone.publish(organizationStatusChanged, { orgId, isActive: true, plan: 'business10' });
    const at = new Date().toISOString();
    roles.set(`${orgId}:${olga}`, 'owner');
    roles.set(`${orgId}:${max}`, 'member');
    plans.set(orgId, { plan_code: 'business10', status: 'active', subscription_id: orgPlan });
    await alone.publish(memberJoined, { orgId, userId: olga, role: 'owner', actorId: olga, at });
    await alone.publish(memberJoined, { orgId, userId: max, role: 'member', actorId: olga, at });
    await alone.publish(subscriptionActivated, subscription(orgPlan, { userId: null, orgId }, 'business10'));
    const { device } = await eventually(
      () =>
        rpc.request(
          createOrgDeviceRpc,
          { org_id: orgId, name: 'max-phone', platform: 'ios', assignee_id: max, region: 'asia', country: 'at' },
          person(olga, 'business'),
        ),
      20_000,
      100,
    );
    expect(device).toMatchObject({ name: 'max-phone', user_id: max, org_id: orgId, is_active: true });
    // The region asked for (issue #23), and the country upper-cased.
    expect(device).toMatchObject({ region_choice: 'asia', country: 'AT', node: { region: 'asia' } });
    expect(await desiredKeys()).toContain(device.public_key);
    const list = await rpc.request(listOrgDevicesRpc, { org_id: orgId }, person(olga, 'business'));
    expect(list.devices.map((d) => d.id)).toEqual([device.id]);

    roles.delete(`${orgId}:${max}`);
    await alone.publish(memberLeft, { orgId, userId: max, actorId: olga, reason: 'removed' });
    await eventually(
      async () =>
        (await rpc.request(listOrgDevicesRpc, { org_id: orgId }, person(olga, 'business'))).devices.length === 0,
      20_000,
      100,
    );
    expect(await desiredKeys()).not.toContain(device.public_key);
  });

  it('refuses the organization’s devices to someone who is not a member', async () => {
    await expect(rpc.request(listOrgDevicesRpc, { org_id: orgId }, person(ann))).rejects.toMatchObject({
      code: expect.stringMatching(/not_found|forbidden/),
    });
  });
});
