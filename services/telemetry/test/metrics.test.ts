import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSampled, latestTelemetryRpc, nodeRegistered, provisioningEvents } from '@qw/contracts';
import { RpcClient, type RunningService } from '@qw/platform';
import { type ServiceAlone, startServiceAlone } from '@qw/testkit';
import { telemetryService } from '../src/app.ts';
import type { TelemetryDatabase } from '../src/database.ts';

/**
 * The internal /metrics of a running service carries what an operator watches (docs/operations.md,
 * deploy/prometheus/alerts.yml): each durable's pending and redelivered messages, dead letters,
 * RPC latency per subject, the outbox's depth, and for telemetry the peers each node reports and
 * when it last sent host metrics. Telemetry is launched alone on its own database and NATS server.
 */
const nodeId = randomUUID();
const nodeName = `mx-${randomBytes(3).toString('hex')}`;

let alone: ServiceAlone;
let service: RunningService<TelemetryDatabase>;

async function metrics(): Promise<string> {
  const response = await service.http.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body;
}

/** The value of the first series of `name` whose labels contain every fragment in `labels`. */
function seriesValue(text: string, name: string, ...labels: string[]): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelPart = line.slice(name.length, line.lastIndexOf(' '));
    if (labels.every((fragment) => labelPart.includes(fragment))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

beforeAll(async () => {
  alone = await startServiceAlone('telemetry-metrics', { provisioning: provisioningEvents });
  service = await alone.launch(telemetryService);
  await alone.publish(nodeRegistered, { nodeId, name: nodeName, region: 'eu' });
}, 120_000);

afterAll(async () => {
  await alone?.stop();
});

describe('the internal /metrics of a running service', () => {
  it('reports every durable’s pending and redelivered messages, sampled from JetStream', async () => {
    // A whole sampling pass has run once its time is reported.
    await expect
      .poll(async () => seriesValue(await metrics(), 'qw_metrics_sampled_seconds', 'schema="telemetry"'), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
    const text = await metrics();
    for (const durable of ['peers-sampled"', 'node-registered"', 'device-created"', 'host-sampled"']) {
      expect(seriesValue(text, 'qw_consumer_pending', durable)).toBeGreaterThanOrEqual(0);
      expect(seriesValue(text, 'qw_consumer_ack_pending', durable)).toBeGreaterThanOrEqual(0);
      expect(seriesValue(text, 'qw_consumer_redelivered', durable)).toBeGreaterThanOrEqual(0);
    }
    expect(seriesValue(text, 'qw_outbox_depth', 'schema="telemetry"')).toBe(0);
  });

  it('counts an event that cannot be handled as a dead letter', async () => {
    const before = seriesValue(await metrics(), 'qw_events_dead_lettered_total', 'peers-sampled"') ?? 0;
    // Not an envelope at all: the consumer moves it to the dead-letter stream at once.
    await alone.admin.js.publish(alone.admin.ns.subject(`node.${nodeName}.peers.sampled`), 'not an event');
    await expect
      .poll(async () => seriesValue(await metrics(), 'qw_events_dead_lettered_total', 'peers-sampled"'))
      .toBe(before + 1);
  });

  it('times each RPC by its subject', async () => {
    const asProvisioning = new RpcClient(await alone.connect('provisioning'));
    await asProvisioning.request(latestTelemetryRpc, { device_ids: [randomUUID()] });
    const text = await metrics();
    expect(seriesValue(text, 'qw_rpc_seconds_count', `subject="${latestTelemetryRpc.subject}"`, 'outcome="ok"')).toBe(
      1,
    );
    expect(seriesValue(text, 'qw_rpc_seconds_bucket', `subject="${latestTelemetryRpc.subject}"`, 'le="+Inf"')).toBe(1);
  });

  it('reports when each node last sent host metrics and how many peers it reported', async () => {
    const sampledAt = new Date();
    await alone.publish(
      hostSampled,
      {
        sampledAt: sampledAt.toISOString(),
        cpu: 0.5,
        memUsed: 1,
        memTotal: 2,
        diskUsed: 1,
        diskTotal: 2,
        load1: 0,
        load5: 0,
        load15: 0,
      },
      { params: { node: nodeName } },
    );
    await expect
      .poll(async () => seriesValue(await metrics(), 'qw_node_last_sample_seconds', `node="${nodeName}"`) ?? 0, {
        timeout: 15_000,
      })
      .toBeCloseTo(sampledAt.getTime() / 1000, 2);
    // No device of this node is known to telemetry, so its newest sample counts none.
    expect(seriesValue(await metrics(), 'qw_node_peers_reported', `node="${nodeName}"`)).toBe(0);
  });
});
