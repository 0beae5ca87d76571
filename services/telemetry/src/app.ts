import {
  adminLatestRpc,
  adminNodeStatsRpc,
  adminServerHistoryRpc,
  adminTrafficRpc,
  latestTelemetryRpc,
  nodeEvents,
  telemetryEvents,
  requireAdmin,
} from '@qw/contracts';
import { endpoint, type ServiceDefinition } from '@qw/platform';
import { telemetryConsumers } from './consumers/telemetry.consumers.ts';
import type { TelemetryDatabase } from './database.ts';
import { latestFor, pruneDeviceTraffic, pruneHostMetrics, pruneKeyVersions } from './samples/samples.service.ts';
import { earlyHandshakeSeconds, pruneEarlyHandshakes } from './samples/handshake-changes.ts';
import { nodeGauges } from './samples/node-metrics.ts';
import {
  connectedCount,
  latestPage,
  nodeStats,
  serverHistory,
  testUserIds,
  trafficLast24Hours,
} from './admin/admin.service.ts';

/**
 * The telemetry service: node agents' peer samples become each device's latest status and
 * hourly traffic totals without a device column; host metrics become vps_metrics. It declares
 * the stream of the node agents' samples (a node may not manage streams) and its own, on which it
 * tells provisioning the newer handshakes it saw.
 */
export const telemetryService: ServiceDefinition<TelemetryDatabase> = {
  name: 'telemetry',
  version: '0.3.0',
  migrations: new URL('../migrations/', import.meta.url),
  events: [...nodeEvents, ...telemetryEvents],
  rpc: ({ db, rpc }) => [
    endpoint(latestTelemetryRpc, async (data) => ({ devices: await latestFor(db, data.device_ids) })),
    // The operator console: platform admins only, checked here whoever asks.
    endpoint(adminTrafficRpc, async (data, caller) => {
      requireAdmin(caller);
      const testIds = data.exclude_test ? await testUserIds(rpc, caller) : [];
      const [active_devices, traffic] = await Promise.all([
        connectedCount(db, testIds),
        trafficLast24Hours(db, testIds),
      ]);
      return { active_devices, traffic };
    }),
    endpoint(adminLatestRpc, (data, caller) => {
      requireAdmin(caller);
      return latestPage(db, rpc, caller, data);
    }),
    endpoint(adminNodeStatsRpc, (data, caller) => {
      requireAdmin(caller);
      return nodeStats(
        db,
        data.node_ids.map((id) => id.toLowerCase()),
        (data.exclude_user_ids ?? []).map((id) => id.toLowerCase()),
      );
    }),
    endpoint(adminServerHistoryRpc, (data, caller) => {
      requireAdmin(caller);
      return serverHistory(db, data.node_id);
    }),
  ],
  consumers: () => telemetryConsumers,
  tasks: ({ db }) => [
    { name: 'prune-host-metrics', everyMs: 15 * 60_000, run: () => pruneHostMetrics(db) },
    { name: 'prune-device-traffic', everyMs: 15 * 60_000, run: () => pruneDeviceTraffic(db) },
    { name: 'prune-early-handshakes', everyMs: earlyHandshakeSeconds * 1000, run: () => pruneEarlyHandshakes(db) },
    { name: 'prune-key-versions', everyMs: 60 * 60_000, run: () => pruneKeyVersions(db) },
  ],
  gauges: ({ db }) => nodeGauges(db),
};
