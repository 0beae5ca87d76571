import { latestTelemetryRpc } from '@qw/contracts';
import { endpoint, type ServiceDefinition } from '@qw/platform';
import { telemetryConsumers } from './consumers/telemetry.consumers.ts';
import { latestFor, pruneHostMetrics } from './samples/samples.service.ts';

/**
 * The telemetry service: node agents' peer samples become each device's latest status and
 * hourly traffic totals without a device column; host metrics become vps_metrics.
 */
export const telemetryService: ServiceDefinition<any> = {
  name: 'telemetry',
  version: '0.2.0',
  migrations: new URL('../migrations/', import.meta.url),
  rpc: ({ db }) => [endpoint(latestTelemetryRpc, async (data) => ({ devices: await latestFor(db, data.device_ids) }))],
  consumers: () => telemetryConsumers,
  tasks: ({ db }) => [{ name: 'prune-host-metrics', everyMs: 15 * 60_000, run: () => pruneHostMetrics(db) }],
};
