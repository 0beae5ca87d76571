import { sql, type Kysely } from 'kysely';

/**
 * The definition of the figures the code computes now. Raise it with any change to the rules in
 * projection-batch.ts, cohort-rules.ts and counters.ts or to these tables: on start, the service
 * rebuilds a projection of the new definition from the streams' history beside the live one and
 * switches to it once it has caught up.
 */
export const currentDefinition = 2;

/**
 * Definition 2 (issue #26) keeps what each customer adds to the figures: refunds by id (their
 * invoice names the customer), each customer's MRR movements per day, each subscription's day
 * counted as new, and each sign-up's person. A figure without some customers is then the totals
 * minus their share, read when asked, so marking a test account needs nothing replayed.
 */
export const customerShareDefinition = 2;

/**
 * Each generation of the projection has its own tables in analytics' schema, named
 * `g<generation>_<table>` (`g2_revenue_daily`): a service has no schema but its own.
 */
export function generationTable(generation: number, table: keyof GenerationTables): string {
  if (!Number.isInteger(generation) || generation < 1) throw new Error(`not a generation: ${generation}`);
  return `g${generation}_${table}`;
}

export const generationTableNames: ReadonlyArray<keyof GenerationTables> = [
  'subscriptions',
  'customers',
  'invoices',
  'customer_months',
  'revenue_daily',
  'revenue_monthly_plan',
  'subscriptions_daily',
  'mrr_daily',
  'cohort_cells',
  'funnel_daily',
  'web_traffic_daily',
  'refunds',
  'customer_mrr_daily',
  'signups',
];

/** The tables of one generation (definition 1), as kysely sees them. Days and months are `date`. */
export type GenerationTables = {
  subscriptions: {
    subscription_id: string;
    customer_key: string | null;
    plan_code: string;
    monthly_cents: number;
    status: string;
    mrr_cents: number;
    counted_new: boolean;
    canceled_day: string | null;
    /** The day it counted as a new subscription (definition 2). */
    new_day: string | null;
    /** The newest state applied (ISO time); an older state arriving late changes nothing. */
    last_effective_at: string | null;
  };
  customers: {
    customer_key: string;
    mrr_cents: number;
    /** Had MRR above 0 at some time: a new start after a stop is a reactivation, not new. */
    ever_subscribed: boolean;
    first_paid_day: string | null;
    cohort_month: string | null;
  };
  invoices: {
    invoice_id: string;
    subscription_id: string | null;
    customer_key: string | null;
    plan_code: string;
    amount_cents: number;
    paid_day: string;
  };
  customer_months: { customer_key: string; month: string };
  revenue_daily: { day: string; amount_cents: number; refunded_cents: number; invoices: number };
  revenue_monthly_plan: { month: string; plan_code: string; amount_cents: number; refunded_cents: number };
  subscriptions_daily: { day: string; new_subs: number; cancels: number };
  mrr_daily: {
    day: string;
    new_cents: number;
    expansion_cents: number;
    contraction_cents: number;
    churn_cents: number;
    reactivation_cents: number;
    new_customers: number;
    reactivated_customers: number;
    churned_customers: number;
  };
  cohort_cells: { cohort_month: string; month_offset: number; customers: number };
  funnel_daily: { day: string; signups: number; first_paid: number };
  web_traffic_daily: { day: string; path: string; views: number };
  /** Each refund issued: its customer is its invoice's, its plan the one counted when issued. */
  refunds: { refund_id: string; invoice_id: string; plan_code: string; amount_cents: number; day: string };
  /** mrr_daily per customer (every MRR movement is a customer's). */
  customer_mrr_daily: { customer_key: string; day: string } & Omit<GenerationTables['mrr_daily'], 'day'>;
  /** Each sign-up's person and day (funnel_daily's signups, per person). */
  signups: { user_id: string; day: string };
};

/** The MRR movement counters of a day, the fleet's (mrr_daily) and each customer's (customer_mrr_daily). */
const mrrMovementColumns = sql.raw(`new_cents bigint not null default 0,
      expansion_cents bigint not null default 0,
      contraction_cents bigint not null default 0,
      churn_cents bigint not null default 0,
      reactivation_cents bigint not null default 0,
      new_customers integer not null default 0,
      reactivated_customers integer not null default 0,
      churned_customers integer not null default 0`);

/** Creates a generation's tables (idempotent: a crash half-way is finished on restart). */
export async function createGenerationTables(db: Kysely<unknown>, generation: number): Promise<void> {
  const table = (name: keyof GenerationTables) => sql.id(generationTable(generation, name));
  const statements = [
    sql`create table if not exists ${table('subscriptions')} (
      subscription_id uuid primary key,
      customer_key uuid,
      plan_code text not null,
      monthly_cents integer not null,
      status text not null,
      mrr_cents integer not null,
      counted_new boolean not null,
      canceled_day date,
      last_effective_at timestamptz)`,
    sql`create table if not exists ${table('customers')} (
      customer_key uuid primary key,
      mrr_cents integer not null,
      ever_subscribed boolean not null,
      first_paid_day date,
      cohort_month date)`,
    sql`create table if not exists ${table('invoices')} (
      invoice_id uuid primary key,
      subscription_id uuid,
      customer_key uuid,
      plan_code text not null,
      amount_cents integer not null,
      paid_day date not null)`,
    sql`create index if not exists ${sql.id(`g${generation}_invoices_unattributed`)} on ${table('invoices')} (subscription_id) where customer_key is null`,
    sql`create table if not exists ${table('customer_months')} (
      customer_key uuid not null,
      month date not null,
      primary key (customer_key, month))`,
    sql`create table if not exists ${table('revenue_daily')} (
      day date primary key,
      amount_cents bigint not null default 0,
      refunded_cents bigint not null default 0,
      invoices integer not null default 0)`,
    sql`create table if not exists ${table('revenue_monthly_plan')} (
      month date not null,
      plan_code text not null,
      amount_cents bigint not null default 0,
      refunded_cents bigint not null default 0,
      primary key (month, plan_code))`,
    sql`create table if not exists ${table('subscriptions_daily')} (
      day date primary key,
      new_subs integer not null default 0,
      cancels integer not null default 0)`,
    sql`create table if not exists ${table('mrr_daily')} (
      day date primary key,
      ${mrrMovementColumns})`,
    sql`create table if not exists ${table('cohort_cells')} (
      cohort_month date not null,
      month_offset integer not null,
      customers integer not null default 0,
      primary key (cohort_month, month_offset))`,
    sql`create table if not exists ${table('funnel_daily')} (
      day date primary key,
      signups integer not null default 0,
      first_paid integer not null default 0)`,
    sql`create table if not exists ${table('web_traffic_daily')} (
      day date not null,
      path text not null,
      views bigint not null default 0,
      primary key (day, path))`,
    // Definition 2: each customer's share (a generation of definition 1 gets them empty on a start
    // of this code; its figures are never read without test customers).
    sql`alter table ${table('subscriptions')} add column if not exists new_day date`,
    sql`create index if not exists ${sql.id(`g${generation}_subscriptions_customer`)} on ${table('subscriptions')} (customer_key)`,
    sql`create index if not exists ${sql.id(`g${generation}_invoices_customer`)} on ${table('invoices')} (customer_key)`,
    sql`create table if not exists ${table('refunds')} (
      refund_id uuid primary key,
      invoice_id uuid not null,
      plan_code text not null,
      amount_cents integer not null,
      day date not null)`,
    sql`create index if not exists ${sql.id(`g${generation}_refunds_invoice`)} on ${table('refunds')} (invoice_id)`,
    sql`create table if not exists ${table('customer_mrr_daily')} (
      customer_key uuid not null,
      day date not null,
      ${mrrMovementColumns},
      primary key (customer_key, day))`,
    sql`create table if not exists ${table('signups')} (
      user_id uuid primary key,
      day date not null)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function dropGenerationTables(db: Kysely<unknown>, generation: number): Promise<void> {
  for (const name of generationTableNames)
    await sql`drop table if exists ${sql.id(generationTable(generation, name))}`.execute(db);
}
