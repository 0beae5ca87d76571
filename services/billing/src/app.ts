import type { ServiceDefinition } from '@qw/platform';

/** The billing service: checkout, subscriptions, invoices, refunds and payment webhooks. */
export const billingService: ServiceDefinition<unknown> = {
  name: 'billing',
  version: '0.1.0',
  migrations: new URL('../migrations/', import.meta.url),
};
