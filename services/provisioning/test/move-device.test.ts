import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activePlanRpc,
  advanceProvisioningClockRpc,
  changeDeviceRegionRpc,
  billingEvents,
  createDeviceRpc,
  desiredPeersRpc,
  deviceConfigRpc,
  deviceMoved,
  handshakesObserved,
  identityEvents,
  latestTelemetryRpc,
  listDevicesRpc,
  mailAddressRpc,
  membershipRpc,
  registerNodeRpc,
  removeDeviceRpc,
  subscriptionActivated,
  telemetryEvents,
  updateDeviceRpc,
} from '@qw/contracts';
import { callerTokenSigner, endpoint, RpcClient, refuseEveryCallerToken } from '@qw/platform';
import { eventually, keepReporting, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import type { BusConnection, RunningService } from '@qw/platform';
import type { ProvisioningDatabase } from '../src/database.ts';
import { provisioningService } from '../src/app.ts';
import { lockDevice } from '../src/devices/devices.repository.ts';
import { moveDevice, movedPeerGraceDays } from '../src/placement/move-device.ts';

/**
 * moveDevice on the running service: two nodes (Europe, then North America), one person's
 * devices moved between them. The old node keeps the old peer until telemetry says the device
 * shook hands through its new node, or until the grace period ends; the new node gets it at once;
 * telemetry is told the key's new node; the person is mailed and the device asks to be downloaded
 * again until it is.
 */
const suffix = randomBytes(3).toString('hex');
const names = { europe: `mv-eu-${suffix}`, america: `mv-na-${suffix}` };
const ann = randomUUID();
const annPlan = randomUUID();

let alone: ServiceAlone;
let provisioning: RunningService<ProvisioningDatabase>;
let rpc: RpcClient;
const nodeIds: Record<string, string> = {};
const stopReports: Record<string, () => Promise<void>> = {};
const nodeBuses: Record<string, BusConnection> = {};
const sign = callerTokenSigner(testCallerKeys.privateKey);
const asBob = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: false, emailVerified: true } as Parameters<
  typeof sign
>[0]);
const asAnn = sign({ userId: ann, accountType: 'personal', isAdmin: false, emailVerified: true } as Parameters<
  typeof sign
>[0]);

async function peersOf(node: string): Promise<Map<string, string[]>> {
  const client = new RpcClient(alone.admin);
  const { peers } = await client.request(desiredPeersRpc, {}, undefined, { params: { node } });
  return new Map(peers.map((peer) => [peer.public_key, peer.allowed_ips]));
}

async function move(deviceId: string, to: string) {
  return provisioning.db.transaction().execute(async (tx) => {
    const device = await lockDevice(tx, deviceId);
    return moveDevice(tx, device!, nodeIds[to]!);
  });
}

const row = (deviceId: string) =>
  provisioning.db.selectFrom('devices').selectAll().where('id', '=', deviceId).executeTakeFirstOrThrow();
const movedRows = (deviceId: string) =>
  provisioning.db.selectFrom('moved_peers').selectAll().where('device_id', '=', deviceId).execute();

beforeAll(async () => {
  alone = await startServiceAlone('provisioning-move', {
    billing: billingEvents,
    identity: identityEvents,
    telemetry: telemetryEvents,
  });
  await alone.serve(
    'billing',
    [
      endpoint(activePlanRpc, async (data) => ({
        plan: data.user_id === ann ? { plan_code: 'personal', status: 'active', subscription_id: annPlan } : null,
      })),
    ],
    refuseEveryCallerToken,
  );
  await alone.serve(
    'identity',
    [
      endpoint(membershipRpc, async () => ({ role: null, org_active: false, plan: null })),
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
  for (const [key, region] of [
    ['europe', 'europe'],
    ['america', 'north-america'],
  ] as const) {
    const bus = await alone.connect((await alone.bus.addNode(names[key])).NATS_USER);
    const node = new RpcClient(bus);
    await node.request(
      registerNodeRpc,
      {
        region,
        endpoint: `198.51.100.${key === 'europe' ? 7 : 8}:51820`,
        public_key: randomBytes(32).toString('base64'),
        ip: '198.51.100.7',
        tags: [],
      },
      undefined,
      { params: { node: names[key] } },
    );
    stopReports[key] = keepReporting(bus, names[key]);
    nodeBuses[key] = bus;
    nodeIds[key] = (
      await provisioning.db.selectFrom('nodes').select('id').where('name', '=', names[key]).executeTakeFirstOrThrow()
    ).id;
  }
  await alone.publish(subscriptionActivated, {
    subscriptionId: annPlan,
    userId: ann,
    orgId: null,
    planCode: 'personal',
    status: 'active',
    currentPeriodEnd: null,
    cancelAtPeriodEnd: false,
  });
}, 120_000);

afterAll(() => alone?.stop());

describe('moving a device to another node', () => {
  it('keeps its key, gets an address on the new node and leaves its old peer until it is seen there', async () => {
    const { device } = await eventually(
      () => rpc.request(createDeviceRpc, { name: 'laptop', platform: 'linux' }, asAnn),
      20_000,
      100,
    );
    expect(device.node?.name).toBe(names.europe);
    const before = await row(device.id);

    const moved = await move(device.id, 'america');
    expect(moved.moved).toBe(true);
    const after = await row(device.id);
    expect(after).toMatchObject({ node_id: nodeIds.america, public_key: before.public_key });
    expect(after.config_changed_at).not.toBeNull();
    // The new node carries it at its new address; the old one still at the old address.
    expect((await peersOf(names.america)).get(before.public_key!)).toEqual([`${after.ipv4}/32`, `${after.ipv6}/128`]);
    expect((await peersOf(names.europe)).get(before.public_key!)).toEqual([`${before.ipv4}/32`, `${before.ipv6}/128`]);
    const [left] = await movedRows(device.id);
    const graceMs = new Date(left!.expires_at).getTime() - Date.now();
    expect(graceMs).toBeGreaterThan((movedPeerGraceDays - 1) * 86_400_000);
    // Telemetry learns the key's new node; the person is mailed to download the config again.
    const event = await alone.lastEvent<{ deviceId: string; nodeId: string; previousNodeId: string }>(deviceMoved);
    expect(event?.data).toMatchObject({ deviceId: device.id, nodeId: nodeIds.america, previousNodeId: nodeIds.europe });
    const mails = await provisioning.db.selectFrom('mail_jobs').select(['kind', 'payload']).execute();
    expect(mails).toContainEqual({ kind: 'device-moved', payload: { deviceId: device.id, nodeId: nodeIds.america } });
    // The view says so until the configuration is downloaded.
    const [listed] = (await rpc.request(listDevicesRpc, {}, asAnn)).devices;
    expect(listed).toMatchObject({ config_changed_at: expect.any(String), node: { name: names.america } });
    expect((await rpc.request(deviceConfigRpc, { device_id: device.id }, asAnn)).config).toContain(
      '198.51.100.8:51820',
    );
    expect((await row(device.id)).config_changed_at).toBeNull();

    // A handshake through the old node (the old config still in use) changes nothing; one through the new node ends the old peer.
    const throughOld = new Date();
    await alone.publish(handshakesObserved, {
      nodeId: nodeIds.europe!,
      devices: [{ deviceId: device.id, latestHandshake: throughOld.toISOString() }],
    });
    await eventually(
      async () => (await row(device.id)).latest_handshake?.getTime() === throughOld.getTime(),
      20_000,
      100,
    );
    expect(await movedRows(device.id)).toHaveLength(1);
    await alone.publish(handshakesObserved, {
      nodeId: nodeIds.america!,
      devices: [{ deviceId: device.id, latestHandshake: new Date(throughOld.getTime() + 1000).toISOString() }],
    });
    await eventually(async () => (await movedRows(device.id)).length === 0, 20_000, 100);
    expect((await peersOf(names.europe)).has(before.public_key!)).toBe(false);
    expect((await peersOf(names.america)).has(before.public_key!)).toBe(true);
  }, 60_000);

  it('moving back takes the peer left there as the device itself; the grace period ends the other', async () => {
    const [laptop] = (await rpc.request(listDevicesRpc, {}, asAnn)).devices;
    await move(laptop!.id, 'europe');
    await move(laptop!.id, 'america');
    await move(laptop!.id, 'europe');
    const rows = await movedRows(laptop!.id);
    expect(rows.map((r) => r.node_id)).toEqual([nodeIds.america]);
    const key = laptop!.public_key!;
    const now = await row(laptop!.id);
    expect((await peersOf(names.europe)).get(key)).toEqual([`${now.ipv4}/32`, `${now.ipv6}/128`]);
    expect((await peersOf(names.america)).has(key)).toBe(true);
    await new RpcClient(alone.admin).request(advanceProvisioningClockRpc, { hours: movedPeerGraceDays * 24 + 1 });
    expect(await movedRows(laptop!.id)).toEqual([]);
    expect((await peersOf(names.america)).has(key)).toBe(false);
    expect((await peersOf(names.europe)).has(key)).toBe(true);
  }, 60_000);

  it('moves a suspended device without leaving a peer or mailing; suspending ends a peer left behind', async () => {
    const [laptop] = (await rpc.request(listDevicesRpc, {}, asAnn)).devices;
    await move(laptop!.id, 'america');
    expect(await movedRows(laptop!.id)).toHaveLength(1);
    await rpc.request(updateDeviceRpc, { device_id: laptop!.id, is_active: false }, asAnn);
    expect(await movedRows(laptop!.id)).toEqual([]);
    expect((await peersOf(names.europe)).has(laptop!.public_key!)).toBe(false);
    const mailsBefore = (await provisioning.db.selectFrom('mail_jobs').select('id').execute()).length;
    await move(laptop!.id, 'europe');
    expect(await movedRows(laptop!.id)).toEqual([]);
    expect((await row(laptop!.id)).node_id).toBe(nodeIds.europe);
    expect((await peersOf(names.europe)).has(laptop!.public_key!)).toBe(false);
    expect((await provisioning.db.selectFrom('mail_jobs').select('id').execute()).length).toBe(mailsBefore);
    // Switched on again, it is on the node it moved to.
    await rpc.request(updateDeviceRpc, { device_id: laptop!.id, is_active: true }, asAnn);
    expect((await peersOf(names.europe)).has(laptop!.public_key!)).toBe(true);
    expect((await peersOf(names.america)).has(laptop!.public_key!)).toBe(false);
  }, 60_000);

  it('pages a node’s desired set in key order, each peer once: its devices, a key in its grace period, a peer a move left', async () => {
    const added: Array<{ id: string; public_key: string | null }> = [];
    for (const name of ['pager 1', 'pager 2', 'pager 3', 'pager 4'])
      added.push((await rpc.request(createDeviceRpc, { name, platform: 'linux' }, asAnn)).device);
    for (const device of added) await move(device.id, 'europe');
    await move(added[0]!.id, 'america');
    const movedKey = added[0]!.public_key!;
    const retiringKey = randomBytes(32).toString('base64');
    await provisioning.db
      .insertInto('retiring_keys')
      .values({
        public_key: retiringKey,
        device_id: added[1]!.id,
        node_id: nodeIds.europe!,
        ipv4: '10.254.254.254',
        ipv6: 'fd00:ffff::fe',
        expires_at: new Date(Date.now() + 86_400_000),
      })
      .execute();
    try {
      const client = new RpcClient(alone.admin);
      const ask = (data: { after?: string; limit?: number }) =>
        client.request(desiredPeersRpc, data, undefined, { params: { node: names.europe } });
      const whole = (await ask({})).peers;
      const keys = whole.map((peer) => peer.public_key);
      expect(keys).toEqual(expect.arrayContaining([movedKey, retiringKey, added[1]!.public_key, added[3]!.public_key]));
      expect(new Set(keys).size).toBe(keys.length);
      // Every page size, the pages put together are the whole set in the same order.
      for (const limit of [1, 2, 3]) {
        const paged: typeof whole = [];
        let after: string | null = null;
        do {
          const page: { peers: typeof whole; next: string | null } = await ask(after ? { after, limit } : { limit });
          expect(page.peers.length).toBeLessThanOrEqual(limit);
          paged.push(...page.peers);
          after = page.next;
        } while (after);
        expect(paged).toEqual(whole);
      }
    } finally {
      await provisioning.db.deleteFrom('retiring_keys').where('public_key', '=', retiringKey).execute();
      for (const device of added) await rpc.request(removeDeviceRpc, { device_id: device.id }, asAnn);
    }
  }, 60_000);
});

describe('a customer chooses a device’s region', () => {
  const choose = (deviceId: string, region: 'auto' | 'europe' | 'north-america' | 'asia', country?: string) =>
    rpc.request(changeDeviceRegionRpc, { device_id: deviceId, region, ...(country ? { country } : {}) }, asAnn);

  it('adds a device in the region asked for, its country kept upper-cased', async () => {
    const { device } = await rpc.request(
      createDeviceRpc,
      { name: 'phone', platform: 'ios', region: 'north-america', country: 'de' },
      asAnn,
    );
    expect(device).toMatchObject({ region_choice: 'north-america', country: 'DE', node: { name: names.america } });
    const auto = await rpc.request(createDeviceRpc, { name: 'tablet', platform: 'ios', country: 'fr' }, asAnn);
    expect(auto.device).toMatchObject({ region_choice: 'auto', country: 'FR', node: { name: names.europe } });
    await expect(
      rpc.request(createDeviceRpc, { name: 'tv', platform: 'other', country: 'ZZ' }, asAnn),
    ).rejects.toMatchObject({ code: 'unprocessable', message: expect.stringContaining('ZZ') });
  });

  it('moves the device when its server is elsewhere, keeps it when it fits, and refuses a region without room', async () => {
    const laptop = (await rpc.request(listDevicesRpc, {}, asAnn)).devices.find((d) => d.name === 'laptop')!;
    expect(laptop.node?.name).toBe(names.europe);
    const moved = await choose(laptop.id, 'north-america');
    expect(moved).toMatchObject({
      moved: true,
      device: { region_choice: 'north-america', node: { name: names.america } },
    });
    expect(moved.device.config_changed_at).not.toBeNull();
    expect((await peersOf(names.america)).has(laptop.public_key!)).toBe(true);
    expect(await choose(laptop.id, 'north-america')).toMatchObject({ moved: false });
    // Automatic with a country of the region it is in: it stays; with one of Europe, it goes back.
    expect(await choose(laptop.id, 'auto', 'US')).toMatchObject({ moved: false, device: { country: 'US' } });
    const back = await choose(laptop.id, 'auto', 'fr');
    expect(back).toMatchObject({
      moved: true,
      device: { region_choice: 'auto', country: 'FR', node: { name: names.europe } },
    });

    await expect(choose(laptop.id, 'asia')).rejects.toMatchObject({
      code: 'region_full',
      message: 'No server in Asia has room right now. Choose another region or Automatic.',
    });
    await expect(choose(laptop.id, 'auto', 'ZZ')).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(
      rpc.request(changeDeviceRegionRpc, { device_id: laptop.id, region: 'north-america' }, asBob),
    ).rejects.toMatchObject({ code: 'not_found' });
    // Nothing of those refusals changed the device.
    expect(await row(laptop.id)).toMatchObject({ region_choice: 'auto', country: 'FR', node_id: nodeIds.europe });
  });

  it('a full node takes no more devices: a region whose nodes are full refuses by its name', async () => {
    await provisioning.db.updateTable('nodes').set({ capacity: 1 }).where('id', '=', nodeIds.america!).execute();
    const laptop = (await rpc.request(listDevicesRpc, {}, asAnn)).devices.find((d) => d.name === 'laptop')!;
    await expect(choose(laptop.id, 'north-america')).rejects.toMatchObject({
      code: 'region_full',
      message: expect.stringContaining('North America'),
    });
    await provisioning.db.updateTable('nodes').set({ capacity: 1000 }).where('id', '=', nodeIds.america!).execute();
  });

  it('places no device on a node that stopped reporting, and again once it reports', async () => {
    await stopReports.america!();
    await provisioning.db
      .updateTable('nodes')
      .set({ last_seen_at: new Date(Date.now() - 3600_000) })
      .where('id', '=', nodeIds.america!)
      .execute();
    const laptop = (await rpc.request(listDevicesRpc, {}, asAnn)).devices.find((d) => d.name === 'laptop')!;
    await expect(choose(laptop.id, 'north-america')).rejects.toMatchObject({ code: 'region_full' });
    const { device } = await rpc.request(createDeviceRpc, { name: 'watch', platform: 'other', country: 'US' }, asAnn);
    expect(device.node?.name).toBe(names.europe);
    keepReporting(nodeBuses.america!, names.america);
    await eventually(async () => (await choose(laptop.id, 'north-america')).moved, 20_000, 250);
  });

  it('refuses the eleventh move of a device within an hour, changing nothing', async () => {
    const laptop = (await rpc.request(listDevicesRpc, {}, asAnn)).devices.find((d) => d.name === 'laptop')!;
    let refusal: { code?: string } | undefined;
    let moves = 0;
    for (let i = 0; i < 12 && !refusal; i++) {
      const before = await row(laptop.id);
      const region = before.node_id === nodeIds.europe ? 'north-america' : 'europe';
      refusal = await choose(laptop.id, region).then(
        () => void moves++,
        (error) => error,
      );
      if (refusal)
        expect(await row(laptop.id)).toMatchObject({ node_id: before.node_id, region_choice: before.region_choice });
    }
    expect(refusal).toMatchObject({ code: 'rate_limited' });
    expect(moves).toBeLessThanOrEqual(10);
  });
});
