import { sql, type Kysely } from 'kysely';
import type {
  Arpu,
  ChurnMonth,
  CohortRetention,
  CountWindow,
  Funnel,
  MrrMonth,
  MrrTotals,
  RevenueDay,
  RevenueMonthPlan,
  RevenueWindow,
  SubscriptionsDay,
} from '@qw/contracts';
import { cohortOffsets } from '@qw/contracts';
import type { AnalyticsDatabase } from '../database.ts';
import { generationTable, type GenerationTables } from '../projection/tables.ts';
import { cohortTable, endDay, monthSpan, percent, runningMonths, toNumber, type Window } from './figure-rules.ts';

/**
 * The figures of the Analytics page, read from one generation of the projection. Every figure is
 * a sum of the projection's daily or monthly counters (docs/analytics.md says what each means);
 * a window of N days ends with the day asked about (today, UTC, unless `as_of` says otherwise).
 * The queries are here; what their rows add up to is decided in figure-rules.ts.
 */
type Db = Kysely<AnalyticsDatabase>;

export class Figures {
  private readonly t: (table: keyof GenerationTables) => ReturnType<typeof sql.id>;

  constructor(
    private readonly db: Db,
    generation: number,
  ) {
    this.t = (table) => sql.id(generationTable(generation, table));
  }

  async revenueWindow(window: Window): Promise<RevenueWindow> {
    const { rows } = await sql<{ amount: string; refunded: string; invoices: string }>`
      select coalesce(sum(amount_cents), 0) as amount, coalesce(sum(refunded_cents), 0) as refunded,
             coalesce(sum(invoices), 0) as invoices
      from ${this.t('revenue_daily')} where day between ${window.from} and ${window.to}`.execute(this.db);
    const amount = toNumber(rows[0]?.amount);
    const refunded = toNumber(rows[0]?.refunded);
    return {
      ...window,
      amount_cents: amount,
      refunded_cents: refunded,
      net_cents: amount - refunded,
      invoices: toNumber(rows[0]?.invoices),
    };
  }

  async countWindow(window: Window, column: 'new_subs' | 'cancels'): Promise<CountWindow> {
    const { rows } = await sql<{ count: string }>`
      select coalesce(sum(${sql.id(column)}), 0) as count
      from ${this.t('subscriptions_daily')} where day between ${window.from} and ${window.to}`.execute(this.db);
    return { ...window, count: toNumber(rows[0]?.count) };
  }

  /** MRR and paying customers at the end of `day`: every movement up to it, added up. */
  async mrrAt(day: string): Promise<{ mrr: number; customers: number }> {
    const { rows } = await sql<{ mrr: string; customers: string }>`
      select coalesce(sum(new_cents + expansion_cents + reactivation_cents - contraction_cents - churn_cents), 0) as mrr,
             coalesce(sum(new_customers + reactivated_customers - churned_customers), 0) as customers
      from ${this.t('mrr_daily')} where day <= ${day}`.execute(this.db);
    return { mrr: toNumber(rows[0]?.mrr), customers: toNumber(rows[0]?.customers) };
  }

  async mrrTotals(asOf: string | undefined): Promise<MrrTotals> {
    const day = endDay(asOf);
    const { mrr, customers } = await this.mrrAt(day);
    return { as_of: day, mrr_total_cents: mrr, arr_total_cents: mrr * 12, paying_customers: customers };
  }

  /** Net revenue of the window per customer paying at its end. */
  async arpu(window: Window): Promise<Arpu> {
    const revenue = await this.revenueWindow(window);
    const { customers } = await this.mrrAt(window.to);
    return {
      ...window,
      net_cents: revenue.net_cents,
      paying_customers: customers,
      arpu_cents: customers > 0 ? Math.round(revenue.net_cents / customers) : null,
    };
  }

  async revenueDaily(window: Window): Promise<{ from: string; to: string; rows: RevenueDay[] }> {
    const { rows } = await sql<{ day: string; amount: string; refunded: string }>`
      select d::date::text as day, coalesce(r.amount_cents, 0) as amount, coalesce(r.refunded_cents, 0) as refunded
      from generate_series(${window.from}::date, ${window.to}::date, interval '1 day') as d
      left join ${this.t('revenue_daily')} r on r.day = d::date
      order by d`.execute(this.db);
    return {
      from: window.from,
      to: window.to,
      rows: rows.map((row) => {
        const amount = toNumber(row.amount);
        const refunded = toNumber(row.refunded);
        return { day: row.day, amount_cents: amount, refunded_cents: refunded, net_cents: amount - refunded };
      }),
    };
  }

  async subscriptionsDaily(window: Window): Promise<{ from: string; to: string; rows: SubscriptionsDay[] }> {
    const { rows } = await sql<{ day: string; new_subs: number; cancels: number }>`
      select d::date::text as day, coalesce(s.new_subs, 0) as new_subs, coalesce(s.cancels, 0) as cancels
      from generate_series(${window.from}::date, ${window.to}::date, interval '1 day') as d
      left join ${this.t('subscriptions_daily')} s on s.day = d::date
      order by d`.execute(this.db);
    return {
      from: window.from,
      to: window.to,
      rows: rows.map((row) => ({ day: row.day, new_subs: toNumber(row.new_subs), cancels: toNumber(row.cancels) })),
    };
  }

  async revenueMonthly(
    months: number,
    asOf: string | undefined,
  ): Promise<{ from: string; to: string; rows: RevenueMonthPlan[] }> {
    const span = monthSpan(months, asOf);
    const { rows } = await sql<{ month_start: string; plan_code: string; amount: string; refunded: string }>`
      select month::text as month_start, plan_code, amount_cents as amount, refunded_cents as refunded
      from ${this.t('revenue_monthly_plan')}
      where month between ${span.from} and ${span.lastMonth} and (amount_cents <> 0 or refunded_cents <> 0)
      order by month, plan_code`.execute(this.db);
    return {
      from: span.from,
      to: span.to,
      rows: rows.map((row) => ({
        month_start: row.month_start,
        plan_code: row.plan_code,
        amount_cents: toNumber(row.amount),
        refunded_cents: toNumber(row.refunded),
      })),
    };
  }

  /** Movements per month up to the end day, with MRR and paying customers at each month's start and end. */
  private async monthlyMovements(months: number, asOf: string | undefined) {
    const span = monthSpan(months, asOf);
    const { rows } = await sql<Record<string, string>>`
      with months as (
        select m::date as month from generate_series(${span.from}::date, ${span.lastMonth}::date, interval '1 month') as m
      ),
      moves as (
        select date_trunc('month', day)::date as month,
               sum(new_cents) as new_cents, sum(expansion_cents) as expansion_cents,
               sum(contraction_cents) as contraction_cents, sum(churn_cents) as churn_cents,
               sum(reactivation_cents) as reactivation_cents, sum(new_customers) as new_customers,
               sum(reactivated_customers) as reactivated_customers, sum(churned_customers) as churned_customers
        from ${this.t('mrr_daily')} where day >= ${span.from} and day <= ${span.to} group by 1
      ),
      base as (
        select coalesce(sum(new_cents + expansion_cents + reactivation_cents - contraction_cents - churn_cents), 0) as mrr,
               coalesce(sum(new_customers + reactivated_customers - churned_customers), 0) as customers
        from ${this.t('mrr_daily')} where day < ${span.from}
      )
      select months.month::text as month_start,
             coalesce(new_cents, 0) as new_cents, coalesce(expansion_cents, 0) as expansion_cents,
             coalesce(contraction_cents, 0) as contraction_cents, coalesce(churn_cents, 0) as churn_cents,
             coalesce(reactivation_cents, 0) as reactivation_cents, coalesce(new_customers, 0) as new_customers,
             coalesce(reactivated_customers, 0) as reactivated_customers,
             coalesce(churned_customers, 0) as churned_customers,
             base.mrr as base_mrr, base.customers as base_customers
      from months left join moves using (month) cross join base
      order by months.month`.execute(this.db);
    const base = { mrr: toNumber(rows[0]?.base_mrr), customers: toNumber(rows[0]?.base_customers) };
    return { span, months: runningMonths(rows as Array<{ month_start: string }>, base) };
  }

  async mrrMovements(
    months: number,
    asOf: string | undefined,
  ): Promise<{ from: string; to: string; rows: MrrMonth[] }> {
    const { span, months: rows } = await this.monthlyMovements(months, asOf);
    return {
      from: span.from,
      to: span.to,
      rows: rows.map(({ month_start, n, net, end }) => ({
        month_start,
        new_cents: n('new_cents'),
        expansion_cents: n('expansion_cents'),
        contraction_cents: n('contraction_cents'),
        churn_cents: n('churn_cents'),
        reactivation_cents: n('reactivation_cents'),
        net_cents: net,
        mrr_end_cents: end.mrr,
        new_customers: n('new_customers'),
        reactivated_customers: n('reactivated_customers'),
        churned_customers: n('churned_customers'),
      })),
    };
  }

  async churn(months: number, asOf: string | undefined): Promise<{ from: string; to: string; rows: ChurnMonth[] }> {
    const { span, months: rows } = await this.monthlyMovements(months, asOf);
    return {
      from: span.from,
      to: span.to,
      rows: rows.map(({ month_start, n, start }) => ({
        month_start,
        churn_pct: percent(n('churned_customers'), start.customers),
        revenue_churn_pct: percent(n('churn_cents') + n('contraction_cents'), start.mrr),
        customers_at_start: start.customers,
        churned_customers: n('churned_customers'),
        mrr_at_start_cents: start.mrr,
        churned_cents: n('churn_cents'),
        contraction_cents: n('contraction_cents'),
      })),
    };
  }

  /** The cohorts of the span, each with the months +0 to +11 that have begun by the end day. */
  async cohorts(months: number, asOf: string | undefined): Promise<CohortRetention> {
    const span = monthSpan(months, asOf);
    const { rows } = await sql<{ cohort_month: string; month_offset: number; customers: number }>`
      select cohort_month::text as cohort_month, month_offset, customers
      from ${this.t('cohort_cells')}
      where cohort_month between ${span.from} and ${span.lastMonth} and month_offset between 0 and ${cohortOffsets - 1}`.execute(
      this.db,
    );
    const cells = new Map(rows.map((row) => [`${row.cohort_month}|${row.month_offset}`, toNumber(row.customers)]));
    return cohortTable(cells, months, span);
  }

  async funnel(window: Window): Promise<Funnel> {
    const { rows } = await sql<{ day: string; visits: string; signups: number; first_paid: number }>`
      select d::date::text as day,
             coalesce((select sum(views) from ${this.t('web_traffic_daily')} w where w.day = d::date), 0) as visits,
             coalesce(f.signups, 0) as signups, coalesce(f.first_paid, 0) as first_paid
      from generate_series(${window.from}::date, ${window.to}::date, interval '1 day') as d
      left join ${this.t('funnel_daily')} f on f.day = d::date
      order by d`.execute(this.db);
    const any = await sql<{
      any: boolean;
    }>`select exists (select 1 from ${this.t('web_traffic_daily')}) as any`.execute(this.db);
    const top = await sql<{ path: string; views: string }>`
      select path, sum(views) as views from ${this.t('web_traffic_daily')}
      where day between ${window.from} and ${window.to}
      group by path order by sum(views) desc, path limit 10`.execute(this.db);
    return {
      from: window.from,
      to: window.to,
      has_visits: any.rows[0]?.any === true,
      rows: rows.map((row) => ({
        day: row.day,
        visits: toNumber(row.visits),
        signups: toNumber(row.signups),
        first_paid: toNumber(row.first_paid),
      })),
      top_paths: top.rows.map((row) => ({ path: row.path, views: toNumber(row.views) })),
    };
  }
}
