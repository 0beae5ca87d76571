import type { ServiceDefinition } from '@qw/platform';

/** The telemetry service: peer samples, latest status per device, hourly traffic and host metrics. */
export const telemetryService: ServiceDefinition<unknown> = {
  name: 'telemetry',
  version: '0.1.0',
  migrations: new URL('../migrations/', import.meta.url),
};
