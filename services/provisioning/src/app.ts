import path from 'node:path';
import { provisioningEvents } from '@qw/contracts';
import { createMailer, type Mailer } from '@qw/platform/mailer';
import type { ServiceDefinition } from '@qw/platform';
import type { ProvisioningDatabase } from './database.ts';
import { DevicesService } from './devices/devices.service.ts';
import { provisioningEndpoints } from './rpc/provisioning.rpc.ts';
import { subscriptionConsumers } from './consumers/subscription-changed.consumer.ts';

export type ProvisioningSettings = {
  PRIVATE_KEY_ENCRYPTION_KEY: string;
  VPN_DNS: string;
  MAIL_URL?: string | undefined;
  MAIL_FROM: string;
  MAIL_DIR: string;
};

/**
 * The provisioning service: devices, keys, address leases, configuration files and mails,
 * entitlements kept from billing events, and the registry of WireGuard nodes.
 */
export function provisioningService(settings: ProvisioningSettings, options: { mailer?: Mailer } = {}): ServiceDefinition<ProvisioningDatabase> {
  const dns = settings.VPN_DNS.split(',').map((s) => s.trim()).filter(Boolean);
  return {
    name: 'provisioning',
    version: '0.2.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: provisioningEvents,
    rpc: ({ db, rpc, logger }) => {
      const mailer = options.mailer ?? createMailer({ mailUrl: settings.MAIL_URL, from: settings.MAIL_FROM, outboxDir: path.resolve(settings.MAIL_DIR), logger });
      const devices = new DevicesService({ db, rpc, mailer, logger, vaultKey: settings.PRIVATE_KEY_ENCRYPTION_KEY, dns });
      return provisioningEndpoints({ db, devices, dns });
    },
    consumers: () => subscriptionConsumers,
  };
}
