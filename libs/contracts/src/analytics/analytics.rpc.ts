import { Type, type Static, type TSchema } from 'typebox';
import { defineRpc } from '../rpc.ts';
import {
  arpuWindows,
  cancelWindows,
  cohortOffsets,
  dailyChartDays,
  longestDailySeries,
  longestMonthlySeries,
  monthlyChartMonths,
  newSubscriptionWindows,
  revenueWindows,
} from './analytics.ts';

/**
 * The figures of the Analytics page, each as one request. Every one is for platform admins only
 * (the caller's assertion says so, or the answer is 403), and every one may be asked "as of" a
 * past day (UTC): the figures as they stood at the end of that day. Money is in cents (USD).
 */
const Day = Type.String({ format: 'date', description: 'a day in UTC, YYYY-MM-DD' });
/**
 * Issue #26: the customers (people's and organizations' ids, as billing names the owner) whose
 * share every figure leaves out: the gateway asks identity for the test accounts and sends them
 * with `exclude_test=true`. Web traffic is anonymous and stays whole.
 */
export const excludedCustomersMax = 2_000;
const Exclude = {
  exclude_customers: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { maxItems: excludedCustomersMax })),
};
const AsOf = { as_of: Type.Optional(Day), ...Exclude };
const Cents = Type.Integer();
const Count = Type.Integer({ minimum: 0 });
const Percent = Type.Union([Type.Number(), Type.Null()], { description: 'null where there is nothing to divide by' });

const windowOf = (windows: readonly number[]) =>
  Type.Integer({ enum: [...windows], description: `one of ${windows.join(', ')} days` });
const span = (max: number, fallback: number, unit: string) =>
  Type.Optional(
    Type.Integer({ minimum: 1, maximum: max, default: fallback, description: `${unit}, ${fallback} if not given` }),
  );

const Window = { days: Type.Integer(), from: Day, to: Day };

export const RevenueWindowSchema = Type.Object({
  ...Window,
  /** Paid invoices (gross). */
  amount_cents: Cents,
  /** Refunds issued on these days, whatever the invoice's day. */
  refunded_cents: Cents,
  net_cents: Cents,
  invoices: Count,
});
export const revenueWindowRpc = defineRpc(
  'analytics.rpc.revenue-window',
  Type.Object({ days: windowOf(revenueWindows), ...AsOf }),
  RevenueWindowSchema,
);

export const CountWindowSchema = Type.Object({ ...Window, count: Count });
export const newSubscriptionsWindowRpc = defineRpc(
  'analytics.rpc.new-subscriptions-window',
  Type.Object({ days: windowOf(newSubscriptionWindows), ...AsOf }),
  CountWindowSchema,
);
export const cancelsWindowRpc = defineRpc(
  'analytics.rpc.cancels-window',
  Type.Object({ days: windowOf(cancelWindows), ...AsOf }),
  CountWindowSchema,
);

export const MrrTotalsSchema = Type.Object({
  as_of: Day,
  mrr_total_cents: Cents,
  arr_total_cents: Cents,
  paying_customers: Count,
});
export const mrrTotalsRpc = defineRpc('analytics.rpc.mrr', Type.Object({ ...AsOf }), MrrTotalsSchema);

export const ArpuSchema = Type.Object({
  ...Window,
  arpu_cents: Type.Union([Cents, Type.Null()]),
  net_cents: Cents,
  paying_customers: Count,
});
export const arpuRpc = defineRpc(
  'analytics.rpc.arpu',
  Type.Object({ days: windowOf(arpuWindows), ...AsOf }),
  ArpuSchema,
);

const DailyRequest = Type.Object({ days: span(longestDailySeries, dailyChartDays, 'days'), ...AsOf });
const MonthlyRequest = Type.Object({ months: span(longestMonthlySeries, monthlyChartMonths, 'months'), ...AsOf });
const series = <T extends TSchema>(row: T) => Type.Object({ from: Day, to: Day, rows: Type.Array(row) });

/** One row per day of the span, zeros included, oldest first. */
export const RevenueDaySchema = Type.Object({ day: Day, amount_cents: Cents, refunded_cents: Cents, net_cents: Cents });
export const revenueDailyRpc = defineRpc('analytics.rpc.revenue-daily', DailyRequest, series(RevenueDaySchema));

export const SubscriptionsDaySchema = Type.Object({ day: Day, new_subs: Count, cancels: Count });
export const subscriptionsDailyRpc = defineRpc(
  'analytics.rpc.subscriptions-daily',
  DailyRequest,
  series(SubscriptionsDaySchema),
);

/** One row per month and plan that had revenue or refunds, oldest first. */
export const RevenueMonthPlanSchema = Type.Object({
  month_start: Day,
  plan_code: Type.String(),
  amount_cents: Cents,
  refunded_cents: Cents,
});
export const revenueMonthlyRpc = defineRpc(
  'analytics.rpc.revenue-monthly',
  MonthlyRequest,
  series(RevenueMonthPlanSchema),
);

/** One row per month of the span, zeros included, oldest first; MRR at the month's end (or at `to`). */
export const MrrMonthSchema = Type.Object({
  month_start: Day,
  new_cents: Cents,
  expansion_cents: Cents,
  contraction_cents: Cents,
  churn_cents: Cents,
  reactivation_cents: Cents,
  net_cents: Cents,
  mrr_end_cents: Cents,
  new_customers: Count,
  reactivated_customers: Count,
  churned_customers: Count,
});
export const mrrMovementsRpc = defineRpc('analytics.rpc.mrr-movements', MonthlyRequest, series(MrrMonthSchema));

/** Spec §3 cohort_retention_monthly: a cell per cohort and month +0 to +11 that has begun. */
export const CohortCellSchema = Type.Object({
  cohort_month: Day,
  month_offset: Type.Integer({ minimum: 0, maximum: cohortOffsets - 1 }),
  customers: Count,
  retention_pct: Type.Number(),
});
export const CohortSizeSchema = Type.Object({ cohort_month: Day, customers: Count });
export const CohortRetentionSchema = Type.Object({
  from: Day,
  to: Day,
  cohorts: Type.Array(CohortSizeSchema),
  rows: Type.Array(CohortCellSchema),
});
export const cohortRetentionRpc = defineRpc(
  'analytics.rpc.cohorts',
  Type.Object({ months: span(cohortOffsets, cohortOffsets, 'cohort months'), ...AsOf }),
  CohortRetentionSchema,
);

/** Spec §3 churn_monthly_last_12m: logo churn as churn_pct, and revenue churn beside it. */
export const ChurnMonthSchema = Type.Object({
  month_start: Day,
  churn_pct: Percent,
  revenue_churn_pct: Percent,
  customers_at_start: Count,
  churned_customers: Count,
  mrr_at_start_cents: Cents,
  churned_cents: Cents,
  contraction_cents: Cents,
});
export const churnMonthlyRpc = defineRpc('analytics.rpc.churn', MonthlyRequest, series(ChurnMonthSchema));

/** Spec §3 funnel_last_60d; `has_visits` is false while web_traffic_daily has no row at all. */
export const FunnelDaySchema = Type.Object({ day: Day, visits: Count, signups: Count, first_paid: Count });
export const FunnelSchema = Type.Object({
  from: Day,
  to: Day,
  has_visits: Type.Boolean(),
  rows: Type.Array(FunnelDaySchema),
  top_paths: Type.Array(Type.Object({ path: Type.String(), views: Count })),
});
export const funnelRpc = defineRpc('analytics.rpc.funnel', DailyRequest, FunnelSchema);

/**
 * The projection the figures are read from, and one being rebuilt from the streams' history
 * beside it (after a change of definition, or when an operator asks for a rebuild).
 */
export const ProjectionGenerationSchema = Type.Object({
  generation: Type.Integer({ minimum: 1 }),
  definition: Type.Integer({ minimum: 1 }),
  status: Type.Union([Type.Literal('building'), Type.Literal('live'), Type.Literal('retired')]),
  started_at: Type.String({ format: 'date-time' }),
  live_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  /** Events still to read from the streams (0 once caught up). */
  pending_events: Count,
});
export type ProjectionGeneration = Static<typeof ProjectionGenerationSchema>;
export const ProjectionStatusSchema = Type.Object({
  live: Type.Union([ProjectionGenerationSchema, Type.Null()]),
  building: Type.Union([ProjectionGenerationSchema, Type.Null()]),
});
export const projectionStatusRpc = defineRpc(
  'analytics.rpc.projection-status',
  Type.Object({}),
  ProjectionStatusSchema,
);
/** Starts a rebuild of the current definition beside the live projection (409 while one is under way). */
export const rebuildProjectionRpc = defineRpc('analytics.rpc.rebuild', Type.Object({}), ProjectionStatusSchema);

export type RevenueWindow = Static<typeof RevenueWindowSchema>;
export type CountWindow = Static<typeof CountWindowSchema>;
export type MrrTotals = Static<typeof MrrTotalsSchema>;
export type Arpu = Static<typeof ArpuSchema>;
export type RevenueDay = Static<typeof RevenueDaySchema>;
export type SubscriptionsDay = Static<typeof SubscriptionsDaySchema>;
export type RevenueMonthPlan = Static<typeof RevenueMonthPlanSchema>;
export type MrrMonth = Static<typeof MrrMonthSchema>;
export type CohortCell = Static<typeof CohortCellSchema>;
export type CohortRetention = Static<typeof CohortRetentionSchema>;
export type ChurnMonth = Static<typeof ChurnMonthSchema>;
export type Funnel = Static<typeof FunnelSchema>;
export type ProjectionStatus = Static<typeof ProjectionStatusSchema>;
