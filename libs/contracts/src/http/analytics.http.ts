import { type TObject, Type } from 'typebox';
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
  revenueDailyRpc,
  revenueMonthlyRpc,
  revenueWindowRpc,
  subscriptionsDailyRpc,
} from '../analytics/analytics.rpc.ts';
import { countedPagePaths } from '../analytics/analytics.ts';
import type { RpcContract } from '../rpc.ts';
import { ExcludeTestSchema } from './admin.http.ts';
import { defineRoute, NoContentSchema } from './route.ts';

const tags = ['analytics'];

/**
 * The query of an Analytics read: the RPC's request, with `exclude_test=true` (issue #26) where the
 * RPC takes the customers to leave out (the gateway asks identity for them).
 */
function readQuery<C extends RpcContract>(rpc: C): C['request'] {
  const request = rpc.request as unknown as TObject;
  if (!('exclude_customers' in request.properties)) return rpc.request;
  const { exclude_customers: _left, ...rest } = request.properties;
  return Type.Object({ ...rest, exclude_test: ExcludeTestSchema }) as unknown as C['request'];
}

/** A read of the Analytics page: GET, admins only, its query the RPC's request. */
function analyticsRead<C extends RpcContract>(operationId: string, path: string, summary: string, rpc: C) {
  return defineRoute({
    operationId,
    method: 'GET',
    url: `/api/admin/analytics/${path}`,
    access: 'admin',
    tags,
    summary,
    querystring: readQuery(rpc),
    response: { 200: rpc.response as C['response'] },
  });
}

export const revenueWindowRoute = analyticsRead(
  'revenueWindow',
  'revenue-window',
  'Spec §7 revenue_window: revenue of the last N days (1, 7, 30, 60, 90, 182, 365, 730), refunds and net',
  revenueWindowRpc,
);
export const newSubscriptionsWindowRoute = analyticsRead(
  'newSubscriptionsWindow',
  'new-subscriptions-window',
  'Spec §7 new_subscriptions_window: subscriptions started in the last N days (1, 7, 30, 60)',
  newSubscriptionsWindowRpc,
);
export const cancelsWindowRoute = analyticsRead(
  'cancelsWindow',
  'cancels-window',
  'Spec §7 cancels_window: subscriptions ended in the last N days (7, 30)',
  cancelsWindowRpc,
);
export const mrrTotalsRoute = analyticsRead(
  'mrrTotals',
  'mrr',
  'Spec §7 mrr_total_cents and arr_total_cents, with the paying customers',
  mrrTotalsRpc,
);
export const arpuRoute = analyticsRead(
  'arpu',
  'arpu',
  'Spec §7 arpu_cents: net revenue of the last 30 days per paying customer',
  arpuRpc,
);
export const revenueDailyRoute = analyticsRead(
  'revenueDaily',
  'revenue-daily',
  'Spec §3 revenue_daily_last_730: revenue per day (60 days unless asked, up to 730)',
  revenueDailyRpc,
);
export const subscriptionsDailyRoute = analyticsRead(
  'subscriptionsDaily',
  'subscriptions-daily',
  'Spec §3 subscriptions_daily_last_730: new subscriptions and cancels per day',
  subscriptionsDailyRpc,
);
export const revenueMonthlyRoute = analyticsRead(
  'revenueMonthly',
  'revenue-monthly',
  'Spec §3 revenue by month and plan (12 months unless asked, up to 24)',
  revenueMonthlyRpc,
);
export const mrrMovementsRoute = analyticsRead(
  'mrrMovements',
  'mrr-movements',
  'MRR movements per month: new, expansion, contraction, churn, reactivation, net, MRR at the end',
  mrrMovementsRpc,
);
export const cohortRetentionRoute = analyticsRead(
  'cohortRetention',
  'cohorts',
  'Spec §3 cohort_retention_monthly: the last 12 cohorts, months +0 to +11',
  cohortRetentionRpc,
);
export const churnMonthlyRoute = analyticsRead(
  'churnMonthly',
  'churn',
  'Spec §3 churn_monthly_last_12m: logo and revenue churn per month',
  churnMonthlyRpc,
);
export const funnelRoute = analyticsRead(
  'funnel',
  'funnel',
  'Spec §3 funnel_last_60d: visits, sign-ups and first payments per day, and the most visited pages',
  funnelRpc,
);
export const projectionStatusRoute = analyticsRead(
  'projectionStatus',
  'projection',
  'The projection the figures come from, and a rebuild under way',
  projectionStatusRpc,
);

export const rebuildProjectionRoute = defineRoute({
  operationId: 'rebuildProjection',
  method: 'POST',
  url: '/api/admin/analytics/rebuild',
  access: 'admin',
  tags,
  summary: 'Rebuild the figures from the history of events, beside the live ones, and switch when caught up',
  response: { 202: rebuildProjectionRpc.response },
});

/** The web app's report of a public page view: the path only. */
export const VisitBodySchema = Type.Object(
  { path: Type.String({ maxLength: 200, description: `one of ${countedPagePaths.join(', ')}` }) },
  { additionalProperties: false },
);
export const recordVisitRoute = defineRoute({
  operationId: 'recordVisit',
  method: 'POST',
  url: '/api/visits',
  access: 'public',
  tags,
  summary: 'Count a view of a public page for the funnel (no address, cookie or identifier is kept)',
  body: VisitBodySchema,
  response: { 204: NoContentSchema },
});

export const analyticsRoutes = [
  revenueWindowRoute,
  newSubscriptionsWindowRoute,
  cancelsWindowRoute,
  mrrTotalsRoute,
  arpuRoute,
  revenueDailyRoute,
  subscriptionsDailyRoute,
  revenueMonthlyRoute,
  mrrMovementsRoute,
  cohortRetentionRoute,
  churnMonthlyRoute,
  funnelRoute,
  projectionStatusRoute,
  rebuildProjectionRoute,
  recordVisitRoute,
];

/**
 * The reads the Analytics page makes when it opens, with its default windows, as paths under
 * /api/admin/analytics/: the admin-guard test walks them and the benchmark times them as one page.
 */
export const analyticsPageRequests: readonly string[] = [
  'revenue-window?days=30',
  'new-subscriptions-window?days=30',
  'cancels-window?days=30',
  'mrr',
  'arpu?days=30',
  'revenue-daily',
  'subscriptions-daily',
  'revenue-monthly',
  'mrr-movements',
  'cohorts',
  'churn',
  'funnel',
  'projection',
];
