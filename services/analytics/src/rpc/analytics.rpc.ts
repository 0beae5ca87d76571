import {
  AppError,
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
import type { AnalyticsDatabase } from '../database.ts';
import type { Projections } from '../projection/generations.ts';
import { customerShareDefinition } from '../projection/tables.ts';

/** The customers a read leaves out (`exclude_customers`, issue #26). */
const excluded = (data: unknown): readonly string[] =>
  (data as { exclude_customers?: readonly string[] | undefined }).exclude_customers ?? [];

/**
 * Every analytics RPC: platform admins only, figures from the live generation. The figures are
 * read on `readDb` (a replica when the service has one): they are projections of events and
 * already trail them, so a replica's lag only adds to a delay the dashboard shows anyway.
 */
export function analyticsEndpoints(deps: {
  readDb: Kysely<AnalyticsDatabase>;
  projections: Projections;
}): RpcEndpoint[] {
  const read = <Req extends TSchema, Res extends TSchema>(
    contract: RpcContract<Req, Res>,
    answer: (figures: Figures, data: Static<Req>) => Promise<Static<Res>>,
  ) =>
    endpoint(contract, async (data, caller: Caller) => {
      requireAdmin(caller);
      // One snapshot per answer: a figure read in several queries (the funnel's days and its top
      // pages) must not mix counts from before and after an event that commits between them. The
      // live generation is read in the same snapshot, so a replica never names a generation whose
      // tables it has not replayed yet.
      return deps.readDb
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const live = await deps.projections.live(trx);
          const exclude = [...new Set(excluded(data).map((id) => id.toLowerCase()))];
          // A generation of an older definition keeps no customer's share (issue #26): it is
          // being rebuilt beside, and the figures without test accounts wait for the switch.
          if (exclude.length > 0 && live.definition < customerShareDefinition)
            throw new AppError(
              'unavailable',
              'The figures without test accounts are being prepared (the projection is being rebuilt). Try again in a few minutes.',
            );
          return answer(new Figures(trx, live.generation, exclude), data);
        });
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
