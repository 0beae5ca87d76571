import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Static } from 'typebox';
import {
  adminNodeStatsRpc,
  adminTrafficRpc,
  deviceCreated,
  deviceMoved,
  deviceRemoved,
  deviceSuspended,
  handshakesChanged,
  handshakesObserved,
  hostSampled,
  latestTelemetryRpc,
  nodeRegistered,
  peersSampled,
  provisioningEvents,
} from '@qw/contracts';
import { callerTokenSigner, RpcClient } from '@qw/platform';
import { eventually, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import { telemetryService } from '../src/app.ts';
import { mapKey, pruneDeviceTraffic } from '../src/samples/samples.service.ts';
import { pruneEarlyHandshakes, recordHandshakeChanges } from '../src/samples/handshake-changes.ts';
import type { TelemetryDatabase } from '../src/database.ts';
import type { RunningService } from '@qw/platform';

/**
 * The telemetry service on its own: a database and a NATS server of this file (the product's
 * permissions on), provisioning's stream declared as provisioning declares it, provisioning's
 * node and device events and a node's samples published for real, and the figures read over its
 * RPCs as the gateway and provisioning ask them. The Telemetry page end to end stays in the
 * gateway's tests (connected-views, admin-fleet).
 *
 * Node "tw-1" carries Ann's laptop (connected) and Ben's phone (suspended by provisioning after
 * its handshake), and Cy's tablet that is removed.
 */
const nodeId = randomUUID();
const nodeName = `tw-${randomBytes(3).toString('hex')}`;
const [userA, userB, userC] = [randomUUID(), randomUUID(), randomUUID()];
const key = () => randomBytes(32).toString('base64');
const laptop = { deviceId: randomUUID(), publicKey: key(), userId: userA, allowedIps: ['10.8.0.2/32'] };
const phone = { deviceId: randomUUID(), publicKey: key(), userId: userB, allowedIps: ['10.8.0.3/32'] };
const tablet = { deviceId: randomUUID(), publicKey: key(), userId: userC, allowedIps: ['10.8.0.4/32'] };

let alone: ServiceAlone;
let running: RunningService<TelemetryDatabase>;
let rpc: RpcClient;
/** As provisioning asks: the latest status of its devices, and the connected count per node. */
let asProvisioning: RpcClient;
let sql: pg.Client;
const sign = callerTokenSigner(testCallerKeys.privateKey);
const operator = sign({ userId: randomUUID(), accountType: 'personal', isAdmin: true, emailVerified: true });

const created = (device: typeof laptop, name: string) =>
  alone.publish(deviceCreated, { ...device, nodeId, orgId: null, name, platform: 'linux', isActive: true });
const now = () => Math.floor(Date.now() / 1000);
const peer = (device: typeof laptop, rx: number, tx: number, handshake = now() - 5) => ({
  publicKey: device.publicKey,
  latestHandshake: handshake,
  rxBytes: rx,
  txBytes: tx,
  maskedEndpoint: '203.0.113.x',
  latencyMs: 12,
});
const sampled = (peers: ReturnType<typeof peer>[]) =>
  alone.publish(peersSampled, { sampledAt: new Date().toISOString(), peers }, { params: { node: nodeName } });
const latest = async (ids: string[]) => (await asProvisioning.request(latestTelemetryRpc, { device_ids: ids })).devices;

beforeAll(async () => {
  // The stream telemetry reads but does not own, as provisioning declares it at its start.
  alone = await startServiceAlone('telemetry-service', { provisioning: provisioningEvents });
  running = await alone.launch(telemetryService);
  rpc = new RpcClient(await alone.connect('gateway'));
  asProvisioning = new RpcClient(await alone.connect('provisioning'));
  sql = new pg.Client({ connectionString: alone.database.adminUrl });
  await sql.connect();

  await alone.publish(nodeRegistered, { nodeId, name: nodeName, region: 'eu' });
  await created(laptop, 'laptop');
  await created(phone, 'phone');
  await created(tablet, 'tablet');
  // Samples count only once the node and the keys are known: wait for the projection.
  await eventually(async () => {
    const { rows } = await sql.query('select count(*)::int as n from telemetry.device_keys where node_id = $1', [
      nodeId,
    ]);
    return rows[0].n === 3;
  }, 20_000);
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await alone?.stop();
});

describe('telemetry projects a node’s samples onto the devices provisioning placed there', () => {
  it('keeps each device’s latest sample, the hour’s traffic, and who is connected', async () => {
    await sampled([peer(laptop, 1000, 500), peer(phone, 200, 100), peer(tablet, 50, 50)]);
    await eventually(async () => (await latest([laptop.deviceId, phone.deviceId, tablet.deviceId])).length === 3);
    await sampled([peer(laptop, 3000, 1500), peer(phone, 300, 100), peer(tablet, 60, 50)]);
    await eventually(async () => (await latest([laptop.deviceId]))[0]?.rx_bytes === 3000);
    const [row] = await latest([laptop.deviceId]);
    expect(row).toMatchObject({ device_id: laptop.deviceId, rx_bytes: 3000, tx_bytes: 1500, endpoint: '203.0.113.x' });
    // The device's last 24 hours: everything its two samples moved (the first counts from zero).
    expect(row).toMatchObject({ rx_bytes_24h: 3000, tx_bytes_24h: 1500 });
    const [phoneRow] = await latest([phone.deviceId]);
    expect(phoneRow).toMatchObject({ rx_bytes_24h: 300, tx_bytes_24h: 100 });

    // The hour's total is the sum of what each device moved: 3000 + 300 + 60 received.
    const traffic = await rpc.request(adminTrafficRpc, {}, operator);
    expect(traffic.traffic).toHaveLength(24);
    // Summed over the 24 hours: the samples may straddle an hour's end.
    const sum = (key: 'rx_bytes' | 'tx_bytes') => traffic.traffic.reduce((total, hour) => total + hour[key], 0);
    expect([sum('rx_bytes'), sum('tx_bytes')]).toEqual([3360, 1650]);
    expect(traffic.active_devices).toBe(3);
  });

  it('a device provisioning suspends is no longer connected; a removed one is forgotten', async () => {
    await alone.publish(deviceSuspended, { ...phone, nodeId, orgId: null, reason: 'plan ended', actorId: null });
    await alone.publish(deviceRemoved, {
      deviceId: tablet.deviceId,
      nodeId,
      publicKey: tablet.publicKey,
      userId: userC,
      orgId: null,
    });
    await eventually(async () => (await rpc.request(adminTrafficRpc, {}, operator)).active_devices === 1, 20_000);
    const stats = await asProvisioning.request(adminNodeStatsRpc, { node_ids: [nodeId] }, operator);
    expect(stats.nodes).toEqual([{ node_id: nodeId, connected: 1, metrics: null }]);
    expect((await latest([tablet.deviceId])).length).toBe(0);
    // A later sample with the removed key counts for nobody.
    await sampled([peer(tablet, 90, 90)]);
    await alone.publish(
      hostSampled,
      {
        sampledAt: new Date().toISOString(),
        cpu: 0.5,
        memUsed: 1,
        memTotal: 2,
        diskUsed: 3,
        diskTotal: 4,
        load1: 0.1,
        load5: 0.2,
        load15: 0.3,
      },
      { params: { node: nodeName } },
    );
    await eventually(
      async () =>
        (await asProvisioning.request(adminNodeStatsRpc, { node_ids: [nodeId] }, operator)).nodes[0]?.metrics !== null,
      20_000,
    );
    expect((await latest([tablet.deviceId])).length).toBe(0);
  });

  it('keeps no per-device history beyond 24 hours: one latest row per device, its hours for a day, traffic by the hour without a device', async () => {
    const { rows: perDevice } = await sql.query(
      'select device_id, count(*)::int as n from telemetry.device_latest_telemetry group by device_id',
    );
    expect(perDevice.every((row) => row.n === 1)).toBe(true);
    const { rows: columns } = await sql.query(
      `select table_name from information_schema.columns
        where table_schema = 'telemetry' and column_name in ('device_id', 'public_key') order by table_name`,
    );
    // The latest status, the key map, whether a device is on, its bytes per hour of the last day,
    // the number of the newest event applied to its key, and a first handshake waiting (two
    // minutes at most) for its key.
    expect([...new Set(columns.map((c) => c.table_name))]).toEqual([
      'device_activity',
      'device_key_versions',
      'device_keys',
      'device_latest_telemetry',
      'device_traffic_hours',
      'early_handshakes',
    ]);
    // The removed tablet's hours went with it.
    const { rows: tabletHours } = await sql.query(
      'select count(*)::int as n from telemetry.device_traffic_hours where device_id = $1',
      [tablet.deviceId],
    );
    expect(tabletHours[0].n).toBe(0);
    // An hour older than a day is not counted, and pruning deletes it.
    await sql.query(
      `insert into telemetry.device_traffic_hours (device_id, hour, rx_bytes, tx_bytes)
       values ($1, date_trunc('hour', now() - interval '25 hours'), 777777, 777777)`,
      [laptop.deviceId],
    );
    expect((await latest([laptop.deviceId]))[0]).toMatchObject({ rx_bytes_24h: 3000, tx_bytes_24h: 1500 });
    await pruneDeviceTraffic(running.db);
    const { rows: old } = await sql.query(
      `select count(*)::int as n from telemetry.device_traffic_hours where hour <= now() - interval '24 hours'`,
    );
    expect(old[0].n).toBe(0);
    // The hour under way is kept in each device's latest row until a later hour's sample ends it.
    const { rows: kept } = await sql.query(
      `select ((select count(*) from telemetry.device_traffic_hours)
            + (select count(*) from telemetry.device_latest_telemetry where hour_rx_bytes > 0))::int as n`,
    );
    expect(kept[0].n).toBeGreaterThan(0);
    // A device silent for more than a day: its last hour's bytes are not kept either (its status is).
    await sql.query(
      `update telemetry.device_latest_telemetry set hour = date_trunc('hour', now() - interval '25 hours')
        where device_id = $1`,
      [phone.deviceId],
    );
    // (Its ended hours too, should its two samples have straddled an hour's end.)
    await sql.query(`update telemetry.device_traffic_hours set hour = hour - interval '2 days' where device_id = $1`, [
      phone.deviceId,
    ]);
    expect((await latest([phone.deviceId]))[0]).toMatchObject({ rx_bytes_24h: 0, tx_bytes_24h: 0 });
    await pruneDeviceTraffic(running.db);
    const { rows: phoneRow } = await sql.query(
      'select hour, hour_rx_bytes::int as rx, rx_bytes::int as counter from telemetry.device_latest_telemetry where device_id = $1',
      [phone.deviceId],
    );
    expect(phoneRow).toEqual([{ hour: null, rx: 0, counter: 300 }]);
    // Traffic is kept by the hour for everyone together: one row per hour, however many devices sampled.
    const { rows: hours } = await sql.query('select count(*)::int as n from telemetry.telemetry');
    expect(hours[0].n).toBeLessThanOrEqual(2);
  });
});

describe('a device provisioning moved to another node', () => {
  it('counts its samples from the new node, and no longer those from the old one', async () => {
    const newNodeId = randomUUID();
    const newNodeName = `tw-${randomBytes(3).toString('hex')}`;
    await alone.publish(nodeRegistered, { nodeId: newNodeId, name: newNodeName, region: 'north-america' });
    await alone.publish(deviceMoved, {
      ...laptop,
      allowedIps: ['10.9.0.2/32'],
      nodeId: newNodeId,
      previousNodeId: nodeId,
      orgId: null,
      isActive: true,
    });
    const fromNew = (rx: number) =>
      alone.publish(
        peersSampled,
        { sampledAt: new Date().toISOString(), peers: [peer(laptop, rx, 1500)] },
        { params: { node: newNodeName } },
      );
    // Until telemetry has the move, the new node's samples count for nobody; then they do.
    await eventually(async () => {
      await fromNew(5000);
      return (await latest([laptop.deviceId]))[0]?.rx_bytes === 5000;
    }, 20_000);
    await sampled([peer(laptop, 9999, 9999)]);
    await fromNew(6000);
    await eventually(async () => (await latest([laptop.deviceId]))[0]?.rx_bytes === 6000, 20_000);
    // 3000 before the move, then 2000 and 1000 more through the new node; the old node's 9999 counted for nothing.
    expect((await latest([laptop.deviceId]))[0]).toMatchObject({ rx_bytes_24h: 6000 });
    const stats = await asProvisioning.request(adminNodeStatsRpc, { node_ids: [nodeId, newNodeId] }, operator);
    expect(stats.nodes.find((n) => n.node_id === newNodeId)?.connected).toBe(1);
  });
});

describe('a first handshake a node saw before telemetry knew the key', () => {
  it('is told once the device event arrives; a key that never arrives is not', async () => {
    const late = { deviceId: randomUUID(), publicKey: key(), userId: randomUUID(), allowedIps: ['10.8.0.9/32'] };
    const stranger = key();
    const at = now() - 2;
    await alone.publish(
      handshakesChanged,
      {
        observedAt: new Date().toISOString(),
        peers: [
          { publicKey: late.publicKey, latestHandshake: at },
          { publicKey: stranger, latestHandshake: at },
        ],
      },
      { params: { node: nodeName } },
    );
    const waiting = async () =>
      (
        await sql.query('select public_key from telemetry.early_handshakes where node_id = $1 order by public_key', [
          nodeId,
        ])
      ).rows.map((row: { public_key: string }) => row.public_key);
    await eventually(async () => (await waiting()).length === 2, 20_000);

    // The device's event comes after its handshake: the handshake is told to provisioning then.
    await created(late, 'late tablet');
    const stream = running.bus.ns.stream('telemetry');
    const subject = running.bus.ns.subject(handshakesObserved.subject);
    const told = await eventually(async () => {
      const message = await running.bus.jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
      const data = message?.json<{ data: Static<typeof handshakesObserved.schema> }>().data;
      return data?.devices.find((device) => device.deviceId === late.deviceId) ? data : undefined;
    }, 20_000);
    expect(told.nodeId).toBe(nodeId);
    expect(told.devices).toEqual([{ deviceId: late.deviceId, latestHandshake: new Date(at * 1000).toISOString() }]);
    // Claimed once; the key no device took keeps waiting until its two minutes are up.
    expect(await waiting()).toEqual([stranger]);
    await pruneEarlyHandshakes(running.db);
    expect(await waiting()).toEqual([stranger]);
    await sql.query(
      "update telemetry.early_handshakes set received_at = now() - interval '121 seconds' where node_id = $1",
      [nodeId],
    );
    await pruneEarlyHandshakes(running.db);
    expect(await waiting()).toEqual([]);
  });

  it('is told when it is recorded while the event that maps its key is not committed yet', async () => {
    const racing = { deviceId: randomUUID(), publicKey: key(), userId: randomUUID(), orgId: null, nodeId };
    const at = now() - 1;
    let mapped!: () => void;
    const keyMapped = new Promise<void>((resolve) => {
      mapped = resolve;
    });
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => {
      commit = resolve;
    });
    // The device event's transaction has mapped the key (and claimed nothing) but not committed.
    const event = running.db.transaction().execute(async (tx) => {
      await mapKey(tx, racing);
      mapped();
      await committing;
    });
    await keyMapped;
    const handshake = running.db.transaction().execute((tx) =>
      recordHandshakeChanges(tx, nodeName, {
        observedAt: new Date().toISOString(),
        peers: [{ publicKey: racing.publicKey, latestHandshake: at }],
      }),
    );
    // The handshake waits for the key's lock. Without it, it would find the key unknown and keep it
    // as early, after the event's claim had looked: told by neither.
    const waitingForKey = async () =>
      Number(
        (
          await sql.query(
            "select count(*) from pg_stat_activity where datname = current_database() and wait_event = 'advisory'",
          )
        ).rows[0].count,
      ) > 0;
    const waited = await Promise.race([
      handshake.then(() => false),
      eventually(waitingForKey, 10_000, 20).then(() => true),
    ]);
    commit();
    await event;
    expect(waited).toBe(true);
    expect(await handshake).toBe(1);
  });
});

describe('a device moved to another node', () => {
  it('is told seen through its new node when it connects there within the second of its last handshake on the old one', async () => {
    const otherId = randomUUID();
    const otherName = `${nodeName}-b`;
    await alone.publish(nodeRegistered, { nodeId: otherId, name: otherName, region: 'na' });
    const mover = { deviceId: randomUUID(), publicKey: key(), userId: randomUUID(), allowedIps: ['10.8.0.12/32'] };
    await alone.publish(
      deviceCreated,
      { ...mover, nodeId, orgId: null, name: 'mover', platform: 'linux', isActive: true },
      { outboxSequence: 100 },
    );
    const keyNode = async () =>
      (await sql.query('select node_id from telemetry.device_keys where device_id = $1', [mover.deviceId])).rows[0]
        ?.node_id;
    await eventually(async () => (await keyNode()) === nodeId, 20_000);
    const stream = running.bus.ns.stream('telemetry');
    const subject = running.bus.ns.subject(handshakesObserved.subject);
    const toldThrough = (node: string) =>
      eventually(async () => {
        const message = await running.bus.jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
        const data = message?.json<{ data: Static<typeof handshakesObserved.schema> }>().data;
        return data?.nodeId === node && data.devices.some((d) => d.deviceId === mover.deviceId) ? data : undefined;
      }, 20_000);
    // Its last handshake through the old node, then the move, then its first through the new node,
    // in the same second (handshakes are whole seconds).
    const at = now() - 1;
    const shook = (node: string) =>
      alone.publish(
        handshakesChanged,
        { observedAt: new Date().toISOString(), peers: [{ publicKey: mover.publicKey, latestHandshake: at }] },
        { params: { node } },
      );
    // Through the old node, a sample (the device's latest row) with that handshake.
    await sampled([peer(mover, 10, 10, at)]);
    await toldThrough(nodeId);
    await alone.publish(
      deviceMoved,
      { ...mover, nodeId: otherId, previousNodeId: nodeId, orgId: null, isActive: true },
      { outboxSequence: 200 },
    );
    await eventually(async () => (await keyNode()) === otherId, 20_000);
    await shook(otherName);
    const told = await toldThrough(otherId);
    expect(told.devices).toEqual([{ deviceId: mover.deviceId, latestHandshake: new Date(at * 1000).toISOString() }]);
  });
});

describe("a device's events in another order than they were made", () => {
  it('applies only the newest by outbox number: a late move or creation changes nothing', async () => {
    const roaming = { deviceId: randomUUID(), publicKey: key(), userId: randomUUID(), allowedIps: ['10.8.0.11/32'] };
    const [first, second] = [randomUUID(), randomUUID()];
    const keyRow = async () =>
      (await sql.query('select node_id from telemetry.device_keys where device_id = $1', [roaming.deviceId])).rows.map(
        (row: { node_id: string }) => row.node_id,
      );
    const moved = (from: string, to: string, outboxSequence: number) =>
      alone.publish(
        deviceMoved,
        { ...roaming, nodeId: to, previousNodeId: from, orgId: null, isActive: true },
        { outboxSequence },
      );
    await alone.publish(
      deviceCreated,
      { ...roaming, nodeId: first, orgId: null, name: 'roaming', platform: 'linux', isActive: true },
      { outboxSequence: 100 },
    );
    await moved(first, second, 300);
    await eventually(async () => (await keyRow())[0] === second, 20_000);
    // A move made before the one applied, whose publish failed and went out again later.
    await moved(second, first, 200);
    // Then a marker on the same consumer: once it is applied, the late move was handled too.
    const marker = { ...roaming, deviceId: randomUUID(), publicKey: key() };
    await alone.publish(
      deviceMoved,
      { ...marker, nodeId: second, previousNodeId: first, orgId: null, isActive: true },
      { outboxSequence: 250 },
    );
    await eventually(
      async () =>
        (await sql.query('select 1 from telemetry.device_keys where device_id = $1', [marker.deviceId])).rowCount === 1,
      20_000,
    );
    expect(await keyRow()).toEqual([second]);

    // Removed; the creation, sent late, does not bring the key back.
    await alone.publish(deviceRemoved, { ...roaming, nodeId: second, orgId: null }, { outboxSequence: 400 });
    await eventually(async () => (await keyRow()).length === 0, 20_000);
    await alone.publish(
      deviceCreated,
      { ...roaming, nodeId: first, orgId: null, name: 'roaming', platform: 'linux', isActive: true },
      { outboxSequence: 150 },
    );
    const nextMarker = { ...marker, deviceId: randomUUID(), publicKey: key() };
    await created(nextMarker, 'marker');
    await eventually(
      async () =>
        (await sql.query('select 1 from telemetry.device_keys where device_id = $1', [nextMarker.deviceId]))
          .rowCount === 1,
      20_000,
    );
    expect(await keyRow()).toEqual([]);
  });
});

describe('telemetry checks its callers itself', () => {
  it('refuses the operator figures to a customer and to an anonymous caller', async () => {
    const customer = sign({ userId: userA, accountType: 'personal', isAdmin: false, emailVerified: true });
    await expect(rpc.request(adminTrafficRpc, {}, customer)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(asProvisioning.request(adminNodeStatsRpc, { node_ids: [nodeId] })).rejects.toMatchObject({
      code: 'not_signed_in',
    });
  });
});
