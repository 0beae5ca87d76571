import {
  arpuRpc,
  cancelsWindowRpc,
  churnMonthlyRpc,
  cohortRetentionRpc,
  funnelRpc,
  mrrMovementsRpc,
  mrrTotalsRpc,
  newSubscriptionsWindowRpc,
  projectionStatusRpc,
  rebuildProjectionRpc,
  requireAdmin,
  revenueDailyRpc,
  revenueMonthlyRpc,
  revenueWindowRpc,
  subscriptionsDailyRpc,
  type Caller,
  type RpcContract,
  dailyChartDays,
  monthlyChartMonths,
  cohortOffsets,
} from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform';
import type { Kysely } from 'kysely';
import type { Static, TSchema } from 'typebox';
import { windowOf } from '../figures/figure-rules.ts';
import { Figures } from '../figures/figures.ts';
import type { Projections } from '../projection/generations.ts';

/** Every analytics RPC: platform admins only, figures from the live generation. */
export function analyticsEndpoints(deps: { db: Kysely<unknown>; projections: Projections }): RpcEndpoint[] {
  const read = <Req extends TSchema, Res extends TSchema>(
    contract: RpcContract<Req, Res>,
    answer: (figures: Figures, data: Static<Req>) => Promise<Static<Res>>,
  ) =>
    endpoint(contract, async (data, caller: Caller) => {
      requireAdmin(caller);
      const generation = await deps.projections.liveGeneration();
      // One snapshot per answer: a figure read in several queries (the funnel's days and its top
      // pages) must not mix counts from before and after an event that commits between them.
      return deps.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => answer(new Figures(trx, generation), data));
    });
  return [
    read(revenueWindowRpc, (f, d) => f.revenueWindow(windowOf(d.days, d.as_of))),
    read(newSubscriptionsWindowRpc, (f, d) => f.countWindow(windowOf(d.days, d.as_of), 'new_subs')),
    read(cancelsWindowRpc, (f, d) => f.countWindow(windowOf(d.days, d.as_of), 'cancels')),
    read(mrrTotalsRpc, (f, d) => f.mrrTotals(d.as_of)),
    read(arpuRpc, (f, d) => f.arpu(windowOf(d.days, d.as_of))),
    read(revenueDailyRpc, (f, d) => f.revenueDaily(windowOf(d.days ?? dailyChartDays, d.as_of))),
    read(subscriptionsDailyRpc, (f, d) => f.subscriptionsDaily(windowOf(d.days ?? dailyChartDays, d.as_of))),
    read(revenueMonthlyRpc, (f, d) => f.revenueMonthly(d.months ?? monthlyChartMonths, d.as_of)),
    read(mrrMovementsRpc, (f, d) => f.mrrMovements(d.months ?? monthlyChartMonths, d.as_of)),
    read(cohortRetentionRpc, (f, d) => f.cohorts(d.months ?? cohortOffsets, d.as_of)),
    read(churnMonthlyRpc, (f, d) => f.churn(d.months ?? monthlyChartMonths, d.as_of)),
    read(funnelRpc, (f, d) => f.funnel(windowOf(d.days ?? dailyChartDays, d.as_of))),
    endpoint(projectionStatusRpc, async (_data, caller) => {
      requireAdmin(caller);
      return deps.projections.status();
    }),
    endpoint(rebuildProjectionRpc, async (_data, caller) => {
      requireAdmin(caller);
      return deps.projections.rebuild();
    }),
  ];
}
