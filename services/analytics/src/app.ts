import type { ServiceDefinition } from '@qw/platform';

/** The analytics service: revenue, subscription, cohort, churn and funnel figures. */
export const analyticsService: ServiceDefinition<unknown> = {
  name: 'analytics',
  version: '0.1.0',
  migrations: new URL('../migrations/', import.meta.url),
};
