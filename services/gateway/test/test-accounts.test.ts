import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsService } from '@qw/analytics';
import { fillSubject, peersSampled, registerNodeRpc } from '@qw/contracts';
import { type BusConnection, createEnvelope } from '@qw/platform';
import { eventually, keepReporting } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { Client, confirmEmail, signUp, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { organizationEventsHandled, ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * Issue #26, test accounts, on the real stack (identity, billing, provisioning, telemetry, analytics) with
 * MARK_TEST_ACCOUNTS on as `make dev` has it: accounts at reserved test domains are test accounts
 * from the start, an operator marks and unmarks others (audited), and with `exclude_test=true` every
 * console figure and list differs from the whole by exactly the test accounts' share: the Overview's
 * tiles and traffic chart, the Users, Organizations and Devices lists, the Telemetry page and the
 * Servers cards, which still reconcile with each other either way, and every Analytics figure.
 */
const password = 'correct horse battery';
const rootEmail = 'root@quietwire.test';

let stack: Stack;
let root: Client;
let pia: Client;
let owen: Client;
let owenId: string;
let orgId: string;
let rae: Client;
let raeId: string;
const nodeName = 'test-accounts-node';
let nodeBus: BusConnection;
type Device = { id: string; public_key: string };
const piaDevices: Device[] = [];
const realDevices: Device[] = [];

type Answer = Awaited<ReturnType<Client['call']>>;
const status = (answer: Answer) => ({ status: answer.statusCode, code: answer.data?.error?.code });
type Listed = { id: string; is_test: boolean };
type ListedDevice = { id: string; owner: { id: string } };

async function everyone(excludeTest: boolean): Promise<{ total: number; rows: Listed[] }> {
  const answer = await root.call('GET', `/api/admin/users?per_page=100&exclude_test=${excludeTest}`);
  expect(answer.statusCode).toBe(200);
  return answer.data;
}
async function everyDevice(excludeTest: boolean): Promise<{ total: number; rows: ListedDevice[] }> {
  const answer = await root.call('GET', `/api/admin/devices?per_page=100&exclude_test=${excludeTest}`);
  expect(answer.statusCode).toBe(200);
  return answer.data;
}
async function organizationsTotal(excludeTest: boolean): Promise<number> {
  const answer = await root.call('GET', `/api/admin/organizations?exclude_test=${excludeTest}`);
  expect(answer.statusCode).toBe(200);
  return answer.data.total;
}
async function overview(excludeTest: boolean) {
  const answer = await root.call('GET', `/api/admin/overview${excludeTest ? '?exclude_test=true' : ''}`);
  expect(answer.statusCode).toBe(200);
  return answer.data;
}

type TelemetryPage = {
  total: number;
  rows: Array<{ device_id: string; is_connected: boolean }>;
  nodes: Array<{ devices: number; connected: number; rx_bytes: number; tx_bytes: number }>;
};
type Server = {
  peers_placed: number;
  peers_retiring: number;
  peers_connected: number;
  peers_test: number;
  load: string;
};
async function telemetry(excludeTest: boolean): Promise<TelemetryPage> {
  const answer = await root.call('GET', `/api/admin/telemetry?per_page=100${excludeTest ? '&exclude_test=true' : ''}`);
  expect(answer.statusCode).toBe(200);
  return answer.data;
}
async function servers(excludeTest: boolean): Promise<Server[]> {
  const answer = await root.call('GET', `/api/admin/servers${excludeTest ? '?exclude_test=true' : ''}`);
  expect(answer.statusCode).toBe(200);
  return answer.data.servers;
}
const sum = <T>(rows: T[], pick: (row: T) => number) => rows.reduce((n, row) => n + pick(row), 0);
const traffic = (o: { traffic: Array<{ rx_bytes: number; tx_bytes: number }> }) => ({
  rx: sum(o.traffic, (hour) => hour.rx_bytes),
  tx: sum(o.traffic, (hour) => hour.tx_bytes),
});

/** The Analytics figures a test customer adds to (this month, today), with or without them. */
async function analyticsFigures(excludeTest: boolean) {
  const read = async (path: string) => {
    const answer = await root.call(
      'GET',
      `/api/admin/analytics/${path}${path.includes('?') ? '&' : '?'}exclude_test=${excludeTest}`,
    );
    expect(answer.statusCode, path).toBe(200);
    return answer.data;
  };
  const [revenue, newSubs, mrr, funnel, cohorts] = await Promise.all([
    read('revenue-window?days=30'),
    read('new-subscriptions-window?days=30'),
    read('mrr'),
    read('funnel?days=30'),
    read('cohorts?months=1'),
  ]);
  type Day = { signups: number; first_paid: number };
  return {
    revenue: revenue.amount_cents as number,
    invoices: revenue.invoices as number,
    newSubs: newSubs.count as number,
    mrr: mrr.mrr_total_cents as number,
    paying: mrr.paying_customers as number,
    signups: (funnel.rows as Day[]).reduce((sum, day) => sum + day.signups, 0),
    firstPaid: (funnel.rows as Day[]).reduce((sum, day) => sum + day.first_paid, 0),
    cohort: cohorts.cohorts[0].customers as number,
  };
}

/** Analytics with and without test accounts, once it has projected every event there is. */
async function analyticsBothWays() {
  await eventually(
    async () => {
      const status = (await root.call('GET', '/api/admin/analytics/projection')).data;
      return status.building === null && status.live?.pending_events === 0;
    },
    30_000,
    100,
  );
  return { whole: await analyticsFigures(false), real: await analyticsFigures(true) };
}

/** Each figure and list with and without test accounts, and the test accounts' own share of it. */
async function bothWays() {
  const [all, real, allDevices, realDevices, whole, without, allOrgs, realOrgs] = await Promise.all([
    everyone(false),
    everyone(true),
    everyDevice(false),
    everyDevice(true),
    overview(false),
    overview(true),
    organizationsTotal(false),
    organizationsTotal(true),
  ]);
  const testIds = new Set(all.rows.filter((row) => row.is_test).map((row) => row.id));
  const testDevices = allDevices.rows.filter((device) => testIds.has(device.owner.id));
  return { all, real, allDevices, realDevices, whole, without, allOrgs, realOrgs, testIds, testDevices };
}

beforeAll(async () => {
  stack = await startStack({
    label: 'test-accounts',
    adminEmails: [rootEmail],
    identity: { MARK_TEST_ACCOUNTS: true },
    extra: (url, mail) => [...deviceServices(url, mail), analyticsService({ checkEveryMs: 200 })],
  });
  const node = await stack.connectNode(nodeName);
  nodeBus = node.bus;
  await node.rpc.request(
    registerNodeRpc,
    {
      region: 'eu-central',
      endpoint: '198.51.100.1:51820',
      public_key: generateKeyPair().publicKey,
      ip: '198.51.100.1',
      tags: [],
    },
    undefined,
    { params: { node: nodeName } },
  );
  keepReporting(node.bus, nodeName);
  root = await confirmEmail(stack, rootEmail, password, await signUp(stack, rootEmail, '198.51.100.7', password));
  // At a reserved test domain: a test account from the start.
  pia = await confirmEmail(stack, 'pia@example.com', password, await customerWithPlan(stack, 'pia@example.com'));
  piaDevices.push(await deviceAdded(pia, { name: 'Pia laptop', platform: 'linux' }));
  piaDevices.push(await deviceAdded(pia, { name: 'Pia phone', platform: 'ios' }));
  // Real people's addresses: counted as customers.
  owen = await confirmEmail(
    stack,
    'owen@owen-and-sons.eu',
    password,
    await customerWithPlan(stack, 'owen@owen-and-sons.eu', 'business10'),
  );
  owenId = await userIdOf(owen);
  orgId = await ownOrganization(owen);
  await organizationEventsHandled(stack);
  realDevices.push(await deviceAdded(owen, { name: 'Owen phone' }, `/api/orgs/${orgId}/devices`));
  rae = await confirmEmail(stack, 'rae@rae-design.eu', password, await customerWithPlan(stack, 'rae@rae-design.eu'));
  raeId = await userIdOf(rae);
  realDevices.push(await deviceAdded(rae, { name: 'Rae desktop', platform: 'windows' }));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('test accounts', () => {
  it('marks accounts at reserved test domains by default, and only those', async () => {
    const { all } = await bothWays();
    const byId = new Map(all.rows.map((row) => [row.id, row.is_test]));
    expect(byId.get(await userIdOf(root))).toBe(true);
    expect(byId.get(await userIdOf(pia))).toBe(true);
    expect(byId.get(owenId)).toBe(false);
    expect(byId.get(raeId)).toBe(false);
    expect((await root.call('GET', `/api/admin/users/${raeId}`)).data.profile.is_test).toBe(false);
  });

  it('leaves test accounts out of every figure and list by exactly their share', async () => {
    const b = await bothWays();
    expect(b.testIds.size).toBe(2);
    expect(b.testDevices).toHaveLength(2);
    // People: the list and the Users tile.
    expect(b.real.total).toBe(b.all.total - b.testIds.size);
    expect(b.real.rows.some((row) => row.is_test)).toBe(false);
    expect(b.whole.users).toBe(b.all.total);
    expect(b.without.users).toBe(b.whole.users - b.testIds.size);
    // Devices: the list, the Devices tile and its breakdown (all of theirs are active with a key).
    expect(b.realDevices.total).toBe(b.allDevices.total - b.testDevices.length);
    expect(b.realDevices.rows.some((device) => b.testIds.has(device.owner.id))).toBe(false);
    expect(b.whole.devices).toBe(b.allDevices.total);
    expect(b.without.devices).toBe(b.whole.devices - b.testDevices.length);
    expect(b.without.devices_breakdown.placed).toBe(b.whole.devices_breakdown.placed - b.testDevices.length);
    expect(b.without.devices_breakdown.suspended).toBe(b.whole.devices_breakdown.suspended);
    // No organization has only test members yet; nobody is connected, so none come off.
    expect(b.without.organizations).toBe(b.whole.organizations);
    expect(b.whole.organizations).toBe(b.allOrgs);
    expect(b.realOrgs).toBe(b.allOrgs);
    expect(b.without.active_devices).toBe(b.whole.active_devices);
  });

  it('leaves test customers out of every Analytics figure by exactly their share', async () => {
    // Pia (test) and Rae bought Personal, Owen's organization Business; root and Pia signed up at
    // reserved test domains. Wait until analytics has every purchase.
    const { whole, real } = await eventually(async () => {
      const both = await analyticsBothWays();
      return both.whole.paying === 3 ? both : undefined;
    }, 30_000);
    expect(real.paying).toBe(whole.paying - 1);
    expect(real.invoices).toBe(whole.invoices - 1);
    expect(real.newSubs).toBe(whole.newSubs - 1);
    expect(real.firstPaid).toBe(whole.firstPaid - 1);
    expect(real.cohort).toBe(whole.cohort - 1);
    // Two test sign-ups (root and Pia); Pia's plan is Personal, as Rae's: the same money.
    expect(real.signups).toBe(whole.signups - 2);
    expect(whole.revenue - real.revenue).toBeGreaterThan(0);
    expect(whole.mrr - real.mrr).toBe(whole.revenue - real.revenue);
    // Asked again, the same: the test accounts are asked of identity, never guessed.
    expect(await analyticsFigures(true)).toEqual(real);
    // A flag that is not one is refused, changing nothing.
    expect(status(await root.call('GET', '/api/admin/analytics/mrr?exclude_test=maybe'))).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    expect(status(await rae.call('GET', '/api/admin/analytics/mrr?exclude_test=true'))).toEqual({
      status: 403,
      code: 'forbidden',
    });
  });

  it('lets an operator mark and unmark an account, audited; an organization of test members is left out', async () => {
    // Refused, changing nothing: a customer, nobody, a malformed id, a body that is not a flag.
    expect(status(await rae.call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: true }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(
      status(await new Client(stack.app).call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: true })),
    ).toEqual({ status: 401, code: 'not_signed_in' });
    expect(status(await root.call('POST', `/api/admin/users/${randomUUID()}/test-account`, { is_test: true }))).toEqual(
      { status: 404, code: 'not_found' },
    );
    expect(status(await root.call('POST', '/api/admin/users/nobody/test-account', { is_test: true }))).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(status(await root.call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: 'yes' }))).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    const before = await bothWays();
    const analyticsBefore = await analyticsBothWays();
    expect(before.testIds.has(owenId)).toBe(false);

    const marked = await root.call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: true });
    expect(marked.statusCode).toBe(200);
    expect(marked.data).toEqual({ is_test: true });
    // Marking again changes nothing and is not audited twice.
    expect((await root.call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: true })).data).toEqual({
      is_test: true,
    });
    const after = await bothWays();
    expect(after.testIds.size).toBe(before.testIds.size + 1);
    expect(after.without.users).toBe(before.without.users - 1);
    expect(after.without.devices).toBe(before.without.devices - 1);
    expect(after.realDevices.total).toBe(before.realDevices.total - 1);
    // Owen's organization has no other member: it is a test organization now.
    expect(after.without.organizations).toBe(before.without.organizations - 1);
    expect(after.realOrgs).toBe(before.realOrgs - 1);
    expect(after.allOrgs).toBe(before.allOrgs);
    expect(after.whole).toMatchObject({ users: before.whole.users, devices: before.whole.devices });
    // Analytics asks again at once: Owen's sign-up and his (now test) organization's purchase are
    // left out, with nothing replayed; the whole is as it was.
    const analyticsAfter = await analyticsBothWays();
    expect(analyticsAfter.whole).toEqual(analyticsBefore.whole);
    expect(analyticsAfter.real).toMatchObject({
      paying: analyticsBefore.real.paying - 1,
      invoices: analyticsBefore.real.invoices - 1,
      newSubs: analyticsBefore.real.newSubs - 1,
      firstPaid: analyticsBefore.real.firstPaid - 1,
      cohort: analyticsBefore.real.cohort - 1,
      signups: analyticsBefore.real.signups - 1,
    });
    expect(analyticsAfter.real.revenue).toBeLessThan(analyticsBefore.real.revenue);
    expect(analyticsBefore.real.mrr - analyticsAfter.real.mrr).toBe(
      analyticsBefore.real.revenue - analyticsAfter.real.revenue,
    );

    expect((await root.call('POST', `/api/admin/users/${owenId}/test-account`, { is_test: false })).statusCode).toBe(
      200,
    );
    const back = await bothWays();
    expect(await analyticsBothWays()).toEqual(analyticsBefore);
    expect(back.without).toMatchObject({
      users: before.without.users,
      organizations: before.without.organizations,
      devices: before.without.devices,
    });
    const person = (await root.call('GET', `/api/admin/users/${owenId}`)).data;
    expect(person.profile.is_test).toBe(false);
    expect(person.operator_actions.slice(0, 3)).toMatchObject([
      { kind: 'user.test_unmarked', target: 'owen@owen-and-sons.eu', details: { user_id: owenId } },
      { kind: 'user.test_marked', target: 'owen@owen-and-sons.eu', details: { user_id: owenId } },
    ]);
    expect(person.operator_actions.filter((a: { kind: string }) => a.kind === 'user.test_marked')).toHaveLength(1);
  });

  it('leaves test accounts out of the Telemetry page, the Servers cards and the traffic chart by exactly their share', async () => {
    // The node reports all four devices connected, each with its own traffic.
    const received = new Map<string, number>([
      [piaDevices[0]!.id, 1_000],
      [piaDevices[1]!.id, 2_000],
      [realDevices[0]!.id, 30_000],
      [realDevices[1]!.id, 400_000],
    ]);
    const telemetryDb = stack.services.telemetry!.db;
    const count = async (table: 'device_keys' | 'device_latest_telemetry') =>
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(telemetryDb)).rows[0]!.n;
    await eventually(async () => (await count('device_keys')) === 4, 15_000, 100);
    // Two samples: half the bytes an hour ago (an ended hour, device_traffic_hours), the rest now
    // (the hour under way, kept in each device's latest row).
    const sample = async (agoMs: number, share: number) => {
      const envelope = createEnvelope(peersSampled, {
        sampledAt: new Date(Date.now() - agoMs).toISOString(),
        peers: [...piaDevices, ...realDevices].map((device) => ({
          publicKey: device.public_key,
          latestHandshake: Math.floor((Date.now() - agoMs) / 1000),
          rxBytes: received.get(device.id)! * share,
          txBytes: (received.get(device.id)! / 10) * share,
          maskedEndpoint: '203.0.113.0/24',
        })),
      });
      await nodeBus.js.publish(fillSubject(peersSampled.subject, { node: nodeName }), JSON.stringify(envelope), {
        msgID: envelope.id,
      });
    };
    await sample(3_600_000, 0.5);
    await eventually(async () => (await count('device_latest_telemetry')) === 4, 15_000, 100);
    await sample(0, 1);
    await eventually(
      async () =>
        (await sql<{ n: number }>`select count(*)::int as n from device_traffic_hours`.execute(telemetryDb)).rows[0]!
          .n === 4,
      15_000,
      100,
    );
    const testShare = { devices: 2, rx: 3_000, tx: 300 };

    const [allRows, realRows, wholeServers, realServers, b] = await Promise.all([
      telemetry(false),
      telemetry(true),
      servers(false),
      servers(true),
      bothWays(),
    ]);
    // Telemetry: the rows, their total and the per-node summary lose exactly the test devices.
    expect(allRows.total).toBe(4);
    expect(realRows.total).toBe(allRows.total - testShare.devices);
    expect(realRows.rows.map((row) => row.device_id).sort()).toEqual(realDevices.map((d) => d.id).sort());
    const [allNode] = allRows.nodes;
    const [realNode] = realRows.nodes;
    expect(allNode).toMatchObject({ devices: 4, connected: 4, rx_bytes: 433_000, tx_bytes: 43_300 });
    expect(realNode).toMatchObject({
      devices: allNode!.devices - testShare.devices,
      connected: allNode!.connected - testShare.devices,
      rx_bytes: allNode!.rx_bytes - testShare.rx,
      tx_bytes: allNode!.tx_bytes - testShare.tx,
    });
    // Overview: connected now and the 24 hours of traffic, less exactly the test devices'.
    expect(b.whole.active_devices).toBe(4);
    expect(b.without.active_devices).toBe(b.whole.active_devices - testShare.devices);
    expect(traffic(b.whole)).toEqual({ rx: 433_000, tx: 43_300 });
    expect(traffic(b.without)).toEqual({ rx: 433_000 - testShare.rx, tx: 43_300 - testShare.tx });
    // Servers: the test accounts' peers counted apart, the others as before; the node's load is
    // what it carries either way.
    expect(wholeServers).toHaveLength(1);
    expect(wholeServers[0]).toMatchObject({ peers_placed: 4, peers_retiring: 0, peers_connected: 4, peers_test: 0 });
    expect(realServers[0]).toMatchObject({
      peers_placed: 4 - testShare.devices,
      peers_retiring: 0,
      peers_connected: 4 - testShare.devices,
      peers_test: testShare.devices,
      load: wholeServers[0]!.load,
    });
    // The three pages still reconcile either way: the Servers' placed peers are the Overview's
    // placed devices, and every Telemetry row is a device of the Devices list.
    expect(sum(wholeServers, (s) => s.peers_placed)).toBe(b.whole.devices_breakdown.placed);
    expect(sum(realServers, (s) => s.peers_placed)).toBe(b.without.devices_breakdown.placed);
    expect(sum(realServers, (s) => s.peers_placed + s.peers_retiring + s.peers_test)).toBe(
      sum(wholeServers, (s) => s.peers_placed + s.peers_retiring),
    );
    const listed = new Set(b.realDevices.rows.map((device) => device.id));
    for (const row of realRows.rows) expect(listed.has(row.device_id)).toBe(true);

    // A mark changes every figure at once (nothing to replay): Rae's desktop leaves them, and comes back.
    expect((await root.call('POST', `/api/admin/users/${raeId}/test-account`, { is_test: true })).statusCode).toBe(200);
    const [marked, markedOverview, markedServers] = await Promise.all([telemetry(true), overview(true), servers(true)]);
    expect(marked.total).toBe(realRows.total - 1);
    expect(traffic(markedOverview)).toEqual({ rx: 30_000, tx: 3_000 });
    expect(markedServers[0]).toMatchObject({ peers_placed: 1, peers_test: 3 });
    expect((await root.call('POST', `/api/admin/users/${raeId}/test-account`, { is_test: false })).statusCode).toBe(
      200,
    );
    expect((await telemetry(true)).total).toBe(realRows.total);
  });
});
