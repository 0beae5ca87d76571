import { gatewayEvents } from '@qw/contracts';
import type { ServiceContext, ServiceDefinition } from '@qw/platform';
import type { AnalyticsDatabase } from './database.ts';
import { Projections, type ProjectionOptions } from './projection/generations.ts';
import { analyticsEndpoints } from './rpc/analytics.rpc.ts';

export type AnalyticsOptions = Pick<ProjectionOptions, 'checkEveryMs' | 'retiredGraceMs' | 'definition'>;

/**
 * The analytics service: revenue, subscription, MRR, cohort, churn and funnel figures, projected
 * only from billing's, identity's and the gateway's events (see docs/analytics.md). It declares
 * the stream of the gateway's visit counts (the gateway manages no stream).
 */
export function analyticsService(options: AnalyticsOptions = {}): ServiceDefinition<AnalyticsDatabase> {
  // One per start of the service (its RPCs and its worker share it).
  const started = new WeakMap<object, Projections>();
  const projectionsOf = (context: ServiceContext<AnalyticsDatabase>) => {
    let projections = started.get(context.db);
    if (!projections) {
      projections = new Projections({ db: context.db, bus: context.bus, logger: context.logger, ...options });
      started.set(context.db, projections);
    }
    return projections;
  };
  return {
    name: 'analytics',
    version: '0.2.0',
    migrations: new URL('../migrations/', import.meta.url),
    events: gatewayEvents,
    rpc: (context) => analyticsEndpoints({ readDb: context.readDb, projections: projectionsOf(context) }),
    workers: (context) => [projectionsOf(context)],
  };
}

/** The definition of the figures this code computes (tests start a newer one to prove a rebuild). */
export { currentDefinition } from './projection/tables.ts';
