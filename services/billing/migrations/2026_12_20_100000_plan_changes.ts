import { sql, type Kysely } from 'kysely';

/**
 * What analytics and plan changes need on a subscription: when it began (its first paid period, on
 * its clock), its price per month (a renewal charges it, never the last invoice's amount, which
 * after an upgrade was a proration), a downgrade waiting for the period's end, and for Stripe the
 * schedule that carries that downgrade there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('subscriptions')
    .addColumn('started_at', 'timestamptz')
    .addColumn('monthly_cents', 'integer', (c) => c.check(sql`monthly_cents >= 0`))
    .addColumn('pending_plan_code', 'text')
    .addColumn('provider_schedule_id', 'text')
    .execute();
  await sql`update subscriptions s set started_at = coalesce(
      (select min(i.period_start) from invoices i where i.subscription_id = s.id and i.paid_at is not null),
      s.current_period_start)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['provider_schedule_id', 'pending_plan_code', 'monthly_cents', 'started_at'])
    await db.schema.alterTable('subscriptions').dropColumn(column).execute();
}
