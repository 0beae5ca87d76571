import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billingEvents,
  createDeviceRpc,
  desiredPeersRpc,
  identityEvents,
  registerNodeRpc,
  reportNodeRpc,
  subscriptionActivated,
} from '@qw/contracts';
import { type BusConnection, callerTokenSigner, RpcClient, type RunningService } from '@qw/platform';
import { eventually, keepReporting, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import { provisioningService } from '../src/app.ts';
import type { ProvisioningDatabase } from '../src/database.ts';
import { serveProvisioningNeighbours } from './support/neighbours.ts';

/**
 * Provisioning's part of the internal /metrics (docs/operations.md, "Read the dashboard"): the
 * peers placed on each node, when its agent last reported and whether it is reachable, beside
 * the bus figures every service reports. Provisioning runs alone on this file's database and NATS
 * server; billing and identity are small doubles, a node registers, fetches its peers and reports
 * as an agent does.
 */
const nodeName = `pm-${randomBytes(3).toString('hex')}`;
const ann = randomUUID();
const annPlan = randomUUID();
const sign = callerTokenSigner(testCallerKeys.privateKey);
const asAnn = sign({ userId: ann, accountType: 'personal', isAdmin: false, emailVerified: true } as Parameters<
  typeof sign
>[0]);
let planActive = false;

let alone: ServiceAlone;
let provisioning: RunningService<ProvisioningDatabase>;
let node: RpcClient;
let nodeBus: BusConnection;

async function metrics(): Promise<string> {
  const response = await provisioning.http.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body;
}
const seriesValue = (text: string, series: string) => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

beforeAll(async () => {
  alone = await startServiceAlone('provisioning-metrics', { billing: billingEvents, identity: identityEvents });
  await serveProvisioningNeighbours(alone, (ask) =>
    planActive && ask.user_id === ann ? { plan_code: 'personal', status: 'active', subscription_id: annPlan } : null,
  );
  provisioning = await alone.launch(
    provisioningService({
      PRIVATE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      VPN_DNS: '10.64.0.1',
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      NODE_ENV: 'test',
    }),
  );
  nodeBus = await alone.connect((await alone.bus.addNode(nodeName)).NATS_USER);
  node = new RpcClient(nodeBus);
}, 120_000);

afterAll(() => alone?.stop());

describe('provisioning’s /metrics', () => {
  it('reports the peers placed on a node, when it last reported and whether it is reachable', async () => {
    const registeredAt = Date.now() / 1000;
    await node.request(
      registerNodeRpc,
      {
        region: 'eu-test',
        endpoint: '198.51.100.9:51820',
        public_key: randomBytes(32).toString('base64'),
        ip: '198.51.100.9',
        tags: [],
      },
      undefined,
      { params: { node: nodeName } },
    );
    // Reachable for placement however long the test takes (a node silent for 30 s takes no devices).
    const stopReporting = keepReporting(nodeBus, nodeName);
    await node.request(desiredPeersRpc, {}, undefined, { params: { node: nodeName } });
    const desired = `qw_node_peers_desired{node="${nodeName}"}`;
    const seen = `qw_node_last_seen_seconds{node="${nodeName}"}`;
    await expect.poll(async () => seriesValue(await metrics(), desired), { timeout: 15_000 }).toBe(0);
    // Sampled every few seconds like the desired peers, and not necessarily in the same pass.
    await expect
      .poll(async () => seriesValue(await metrics(), seen) ?? 0, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(Math.floor(registeredAt) - 1);

    planActive = true;
    await alone.publish(subscriptionActivated, {
      subscriptionId: annPlan,
      userId: ann,
      orgId: null,
      planCode: 'personal',
      status: 'active',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
    const gateway = new RpcClient(await alone.connect('gateway'));
    await eventually(
      async () => (await gateway.request(createDeviceRpc, { name: 'laptop', platform: 'linux' }, asAnn)).device,
      20_000,
      200,
    );
    await expect.poll(async () => seriesValue(await metrics(), desired), { timeout: 15_000 }).toBe(1);

    // Reachable while it reports; once silent for 30 s (its last report moved back a minute here), not.
    const reachable = `qw_node_reachable{node="${nodeName}"}`;
    const age = `qw_node_report_age_seconds{node="${nodeName}"}`;
    await node.request(
      reportNodeRpc,
      { agent_version: 'test', started_at: new Date().toISOString(), peers: 1 },
      undefined,
      {
        params: { node: nodeName },
      },
    );
    await expect.poll(async () => seriesValue(await metrics(), reachable), { timeout: 15_000 }).toBe(1);
    expect(seriesValue(await metrics(), age)).toBeLessThan(30);
    await stopReporting();
    // A report whose answer the reporter gave up on under load can still commit after the clock is
    // moved back (its now() from seconds before): move it back again until one scrape shows both.
    await expect
      .poll(
        async () => {
          await provisioning.db
            .updateTable('nodes')
            .set({ last_seen_at: new Date(Date.now() - 60_000) })
            .where('name', '=', nodeName)
            .execute();
          const scrape = await metrics();
          return { reachable: seriesValue(scrape, reachable), silentAMinute: (seriesValue(scrape, age) ?? 0) >= 60 };
        },
        { timeout: 15_000 },
      )
      .toEqual({ reachable: 0, silentAMinute: true });
    // The bus figures are there for provisioning's durables too.
    expect(await metrics()).toMatch(
      /^qw_consumer_pending\{consumer="[^"]*subscription-activated",stream="[^"]*"\} \d+$/m,
    );
    expect(seriesValue(await metrics(), 'qw_outbox_depth{schema="provisioning"}')).toBeGreaterThanOrEqual(0);
  });
});
