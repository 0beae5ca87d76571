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
 *
 * Issue #26: with customers to leave out (`exclude`, the test accounts), each figure is the
 * totals minus those customers' share, read from the rows the projection keeps per customer
 * (invoices, refunds, subscriptions, customer_mrr_daily, customers and their paid months,
 * sign-ups): who is left out is decided when asked, nothing is replayed. Visits are anonymous
 * and stay whole.
 */
type Db = Kysely<AnalyticsDatabase>;
type Share = { amount: number; refunded: number; invoices: number };
const mrrColumns = [
  'new_cents',
  'expansion_cents',
  'contraction_cents',
  'churn_cents',
  'reactivation_cents',
  'new_customers',
  'reactivated_customers',
  'churned_customers',
] as const;

export class Figures {
  private readonly t: (table: keyof GenerationTables) => ReturnType<typeof sql.id>;

  constructor(
    private readonly db: Db,
    generation: number,
    private readonly exclude: readonly string[] = [],
  ) {
    this.t = (table) => sql.id(generationTable(generation, table));
  }

  private get excluding(): boolean {
    return this.exclude.length > 0;
  }

  private get excluded() {
    return sql`${this.exclude}::uuid[]`;
  }

  /** The left-out customers' invoices (by the day paid) and refunds (by the day issued), per day. */
  private async revenueShare(from: string, to: string): Promise<Map<string, Share>> {
    const out = new Map<string, Share>();
    if (!this.excluding) return out;
    const { rows } = await sql<{ day: string; amount: string; refunded: string; invoices: string }>`
      select paid_day::text as day, sum(amount_cents) as amount, 0 as refunded, count(*) as invoices
      from ${this.t('invoices')}
      where customer_key = any(${this.excluded}) and paid_day between ${from} and ${to} group by paid_day
      union all
      select r.day::text, 0, sum(r.amount_cents), 0
      from ${this.t('refunds')} r join ${this.t('invoices')} i on i.invoice_id = r.invoice_id
      where i.customer_key = any(${this.excluded}) and r.day between ${from} and ${to} group by r.day`.execute(this.db);
    for (const row of rows) {
      const share = out.get(row.day) ?? { amount: 0, refunded: 0, invoices: 0 };
      share.amount += toNumber(row.amount);
      share.refunded += toNumber(row.refunded);
      share.invoices += toNumber(row.invoices);
      out.set(row.day, share);
    }
    return out;
  }

  /** The left-out customers' subscriptions counted new and ended, per day. */
  private async subscriptionsShare(
    from: string,
    to: string,
  ): Promise<Map<string, { new_subs: number; cancels: number }>> {
    const out = new Map<string, { new_subs: number; cancels: number }>();
    if (!this.excluding) return out;
    const { rows } = await sql<{ day: string; new_subs: string; cancels: string }>`
      select new_day::text as day, count(*) as new_subs, 0 as cancels from ${this.t('subscriptions')}
      where customer_key = any(${this.excluded}) and new_day between ${from} and ${to} group by new_day
      union all
      select canceled_day::text, 0, count(*) from ${this.t('subscriptions')}
      where customer_key = any(${this.excluded}) and canceled_day between ${from} and ${to} group by canceled_day`.execute(
      this.db,
    );
    for (const row of rows) {
      const share = out.get(row.day) ?? { new_subs: 0, cancels: 0 };
      share.new_subs += toNumber(row.new_subs);
      share.cancels += toNumber(row.cancels);
      out.set(row.day, share);
    }
    return out;
  }

  async revenueWindow(window: Window): Promise<RevenueWindow> {
    const { rows } = await sql<{ amount: string; refunded: string; invoices: string }>`
      select coalesce(sum(amount_cents), 0) as amount, coalesce(sum(refunded_cents), 0) as refunded,
             coalesce(sum(invoices), 0) as invoices
      from ${this.t('revenue_daily')} where day between ${window.from} and ${window.to}`.execute(this.db);
    let amount = toNumber(rows[0]?.amount);
    let refunded = toNumber(rows[0]?.refunded);
    let invoices = toNumber(rows[0]?.invoices);
    for (const share of (await this.revenueShare(window.from, window.to)).values()) {
      amount -= share.amount;
      refunded -= share.refunded;
      invoices -= share.invoices;
    }
    return { ...window, amount_cents: amount, refunded_cents: refunded, net_cents: amount - refunded, invoices };
  }

  async countWindow(window: Window, column: 'new_subs' | 'cancels'): Promise<CountWindow> {
    const { rows } = await sql<{ count: string }>`
      select coalesce(sum(${sql.id(column)}), 0) as count
      from ${this.t('subscriptions_daily')} where day between ${window.from} and ${window.to}`.execute(this.db);
    let count = toNumber(rows[0]?.count);
    for (const share of (await this.subscriptionsShare(window.from, window.to)).values()) count -= share[column];
    return { ...window, count };
  }

  /** MRR and paying customers at the end of `day`: every movement up to it, added up. */
  async mrrAt(day: string): Promise<{ mrr: number; customers: number }> {
    const { rows } = await sql<{ mrr: string; customers: string }>`
      select coalesce(sum(new_cents + expansion_cents + reactivation_cents - contraction_cents - churn_cents), 0) as mrr,
             coalesce(sum(new_customers + reactivated_customers - churned_customers), 0) as customers
      from ${this.t('mrr_daily')} where day <= ${day}
      union all
      select -coalesce(sum(new_cents + expansion_cents + reactivation_cents - contraction_cents - churn_cents), 0),
             -coalesce(sum(new_customers + reactivated_customers - churned_customers), 0)
      from ${this.t('customer_mrr_daily')}
      where customer_key = any(${this.excluded}) and day <= ${day}`.execute(this.db);
    const sum = (name: 'mrr' | 'customers') => rows.reduce((total, row) => total + toNumber(row[name]), 0);
    return { mrr: sum('mrr'), customers: sum('customers') };
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
    const shares = await this.revenueShare(window.from, window.to);
    return {
      from: window.from,
      to: window.to,
      rows: rows.map((row) => {
        const share = shares.get(row.day);
        const amount = toNumber(row.amount) - (share?.amount ?? 0);
        const refunded = toNumber(row.refunded) - (share?.refunded ?? 0);
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
    const shares = await this.subscriptionsShare(window.from, window.to);
    return {
      from: window.from,
      to: window.to,
      rows: rows.map((row) => {
        const share = shares.get(row.day);
        return {
          day: row.day,
          new_subs: toNumber(row.new_subs) - (share?.new_subs ?? 0),
          cancels: toNumber(row.cancels) - (share?.cancels ?? 0),
        };
      }),
    };
  }

  async revenueMonthly(
    months: number,
    asOf: string | undefined,
  ): Promise<{ from: string; to: string; rows: RevenueMonthPlan[] }> {
    const span = monthSpan(months, asOf);
    // The left-out customers' share is subtracted in the same statement (negative rows), then
    // every month and plan added up.
    const { rows } = await sql<{ month_start: string; plan_code: string; amount: string; refunded: string }>`
      with parts as (
        select month, plan_code, amount_cents as amount, refunded_cents as refunded
        from ${this.t('revenue_monthly_plan')} where month between ${span.from} and ${span.lastMonth}
        union all
        select date_trunc('month', paid_day)::date, plan_code, -amount_cents, 0
        from ${this.t('invoices')}
        where customer_key = any(${this.excluded})
          and paid_day between ${span.from} and ${span.to}
        union all
        select date_trunc('month', r.day)::date, r.plan_code, 0, -r.amount_cents
        from ${this.t('refunds')} r join ${this.t('invoices')} i on i.invoice_id = r.invoice_id
        where i.customer_key = any(${this.excluded})
          and r.day between ${span.from} and ${span.to}
      )
      select month::text as month_start, plan_code, sum(amount) as amount, sum(refunded) as refunded
      from parts group by month, plan_code
      having sum(amount) <> 0 or sum(refunded) <> 0
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
      daily as (
        select day, ${sql.join(mrrColumns.map((c) => sql.id(c)))}
        from ${this.t('mrr_daily')} where day <= ${span.to}
        union all
        select day, ${sql.join(mrrColumns.map((c) => sql`-${sql.id(c)}`))}
        from ${this.t('customer_mrr_daily')} where customer_key = any(${this.excluded}) and day <= ${span.to}
      ),
      moves as (
        select date_trunc('month', day)::date as month,
               sum(new_cents) as new_cents, sum(expansion_cents) as expansion_cents,
               sum(contraction_cents) as contraction_cents, sum(churn_cents) as churn_cents,
               sum(reactivation_cents) as reactivation_cents, sum(new_customers) as new_customers,
               sum(reactivated_customers) as reactivated_customers, sum(churned_customers) as churned_customers
        from daily where day >= ${span.from} group by 1
      ),
      base as (
        select coalesce(sum(new_cents + expansion_cents + reactivation_cents - contraction_cents - churn_cents), 0) as mrr,
               coalesce(sum(new_customers + reactivated_customers - churned_customers), 0) as customers
        from daily where day < ${span.from}
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
    if (this.excluding) {
      // A left-out customer counts once in its cohort's cell of every month it paid in.
      const share = await sql<{ cohort_month: string; month_offset: number; customers: string }>`
        select c.cohort_month::text as cohort_month,
               ((extract(year from m.month) - extract(year from c.cohort_month)) * 12
                 + extract(month from m.month) - extract(month from c.cohort_month))::int as month_offset,
               count(*) as customers
        from ${this.t('customers')} c join ${this.t('customer_months')} m on m.customer_key = c.customer_key
        where c.customer_key = any(${this.excluded}) and c.cohort_month between ${span.from} and ${span.lastMonth}
        group by 1, 2`.execute(this.db);
      for (const row of share.rows) {
        const key = `${row.cohort_month}|${row.month_offset}`;
        cells.set(key, (cells.get(key) ?? 0) - toNumber(row.customers));
      }
    }
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
    // The left-out customers' sign-ups and first payments; visits are nobody's and stay whole.
    const share = new Map<string, { signups: number; first_paid: number }>();
    if (this.excluding) {
      const { rows: parts } = await sql<{ day: string; signups: string; first_paid: string }>`
        select day::text as day, count(*) as signups, 0 as first_paid from ${this.t('signups')}
        where user_id = any(${this.excluded}) and day between ${window.from} and ${window.to} group by day
        union all
        select first_paid_day::text, 0, count(*) from ${this.t('customers')}
        where customer_key = any(${this.excluded}) and first_paid_day between ${window.from} and ${window.to}
        group by first_paid_day`.execute(this.db);
      for (const part of parts) {
        const day = share.get(part.day) ?? { signups: 0, first_paid: 0 };
        day.signups += toNumber(part.signups);
        day.first_paid += toNumber(part.first_paid);
        share.set(part.day, day);
      }
    }
    return {
      from: window.from,
      to: window.to,
      has_visits: any.rows[0]?.any === true,
      rows: rows.map((row) => ({
        day: row.day,
        visits: toNumber(row.visits),
        signups: toNumber(row.signups) - (share.get(row.day)?.signups ?? 0),
        first_paid: toNumber(row.first_paid) - (share.get(row.day)?.first_paid ?? 0),
      })),
      top_paths: top.rows.map((row) => ({ path: row.path, views: toNumber(row.views) })),
    };
  }
}
