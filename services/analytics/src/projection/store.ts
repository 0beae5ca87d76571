import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { BatchChanges, CustomerRow, InvoiceRow, ProjectionStore, SubscriptionRow } from './rows.ts';
import { generationTable, type GenerationTables } from './tables.ts';

/** The rows of one generation's tables, read inside the batch's transaction. */
export class PostgresProjectionStore implements ProjectionStore {
  private readonly t: (table: keyof GenerationTables) => ReturnType<typeof sql.id>;

  constructor(
    private readonly tx: Kysely<unknown>,
    generation: number,
  ) {
    this.t = (table) => sql.id(generationTable(generation, table));
  }

  async subscriptions(ids: readonly string[]): Promise<SubscriptionRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await sql<SubscriptionRow>`
      select subscription_id, customer_key, plan_code, monthly_cents, status, mrr_cents, counted_new,
             canceled_day::text as canceled_day, new_day::text as new_day,
             to_char(last_effective_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_effective_at
      from ${this.t('subscriptions')} where subscription_id = any(${ids}::uuid[])`.execute(this.tx);
    return rows;
  }

  async customers(keys: readonly string[]): Promise<CustomerRow[]> {
    if (keys.length === 0) return [];
    const { rows } = await sql<CustomerRow>`
      select customer_key, mrr_cents, ever_subscribed, first_paid_day::text as first_paid_day,
             cohort_month::text as cohort_month
      from ${this.t('customers')} where customer_key = any(${keys}::uuid[])`.execute(this.tx);
    return rows;
  }

  async customerMonths(keys: readonly string[]): Promise<Array<{ customer_key: string; month: string }>> {
    if (keys.length === 0) return [];
    const { rows } = await sql<{ customer_key: string; month: string }>`
      select customer_key, month::text as month
      from ${this.t('customer_months')} where customer_key = any(${keys}::uuid[])`.execute(this.tx);
    return rows;
  }

  async invoices(ids: readonly string[]): Promise<InvoiceRow[]> {
    if (ids.length === 0) return [];
    const { rows } = await sql<InvoiceRow>`
      select invoice_id, subscription_id, customer_key, plan_code, amount_cents, paid_day::text as paid_day
      from ${this.t('invoices')} where invoice_id = any(${ids}::uuid[])`.execute(this.tx);
    return rows;
  }

  async unattributedInvoices(subscriptionIds: readonly string[]): Promise<InvoiceRow[]> {
    if (subscriptionIds.length === 0) return [];
    const { rows } = await sql<InvoiceRow>`
      select invoice_id, subscription_id, customer_key, plan_code, amount_cents, paid_day::text as paid_day
      from ${this.t('invoices')}
      where subscription_id = any(${subscriptionIds}::uuid[]) and customer_key is null`.execute(this.tx);
    return rows;
  }
}

type Row = Record<string, unknown>;

/**
 * One multi-row insert: rows replace what is there (`set`), or their numbers are added to what is
 * there (`add`), keyed by `key`.
 */
function upsert(
  table: string,
  key: readonly string[],
  rows: readonly Row[],
  mode: 'set' | 'add',
): RawBuilder<unknown> | null {
  if (rows.length === 0) return null;
  const columns = Object.keys(rows[0]!);
  const others = columns.filter((column) => !key.includes(column));
  const values = sql.join(rows.map((row) => sql`(${sql.join(columns.map((column) => row[column]))})`));
  const assignments = others.map((column) =>
    mode === 'add'
      ? sql`${sql.id(column)} = t.${sql.id(column)} + excluded.${sql.id(column)}`
      : sql`${sql.id(column)} = excluded.${sql.id(column)}`,
  );
  const onConflict = assignments.length === 0 ? sql`do nothing` : sql`do update set ${sql.join(assignments)}`;
  return sql`insert into ${sql.id(table)} as t (${sql.join(columns.map((column) => sql.id(column)))})
    values ${values} on conflict (${sql.join(key.map((column) => sql.id(column)))}) ${onConflict}`;
}

/** Postgres takes at most 65,535 parameters in one statement. */
function chunks<T>(rows: readonly T[], size = 1000): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Writes what a batch changed, in the batch's transaction. */
export async function writeChanges(tx: Kysely<unknown>, generation: number, changes: BatchChanges): Promise<void> {
  const { counters } = changes;
  const statements: Array<[keyof GenerationTables, readonly string[], readonly Row[], 'set' | 'add']> = [
    ['subscriptions', ['subscription_id'], changes.subscriptions, 'set'],
    ['customers', ['customer_key'], changes.customers, 'set'],
    ['invoices', ['invoice_id'], changes.invoices, 'set'],
    ['customer_months', ['customer_key', 'month'], changes.customerMonths, 'set'],
    ['revenue_daily', ['day'], [...counters.revenue_daily].map(([day, row]) => ({ day, ...row })), 'add'],
    ['revenue_monthly_plan', ['month', 'plan_code'], [...counters.revenue_monthly_plan.values()], 'add'],
    ['subscriptions_daily', ['day'], [...counters.subscriptions_daily].map(([day, row]) => ({ day, ...row })), 'add'],
    ['mrr_daily', ['day'], [...counters.mrr_daily].map(([day, row]) => ({ day, ...row })), 'add'],
    ['cohort_cells', ['cohort_month', 'month_offset'], [...counters.cohort_cells.values()], 'add'],
    ['funnel_daily', ['day'], [...counters.funnel_daily].map(([day, row]) => ({ day, ...row })), 'add'],
    ['web_traffic_daily', ['day', 'path'], [...counters.web_traffic_daily.values()], 'add'],
    ['refunds', ['refund_id'], changes.refunds, 'set'],
    ['signups', ['user_id'], changes.signups, 'set'],
    ['customer_mrr_daily', ['customer_key', 'day'], [...counters.customer_mrr_daily.values()], 'add'],
  ];
  for (const [table, key, rows, mode] of statements) {
    for (const part of chunks(rows)) {
      const statement = upsert(generationTable(generation, table), key, part, mode);
      if (statement) await statement.execute(tx);
    }
  }
}
