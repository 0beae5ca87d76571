import type { ServiceDefinition } from '@qw/platform';

/** The provisioning service: devices, keys, addresses, configs and WireGuard nodes. */
export const provisioningService: ServiceDefinition<unknown> = {
  name: 'provisioning',
  version: '0.1.0',
  migrations: new URL('../migrations/', import.meta.url),
};
