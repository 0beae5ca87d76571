import type { Kysely } from 'kysely';
import { entitlingStatuses, type AdminPersonBilling } from '@qw/contracts';
import { invoiceSummary } from '../accounts/account-data.ts';
import type { BillingDatabase } from '../database.ts';

type Db = Kysely<BillingDatabase>;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/**
 * The console's page of one person, billing's part (issue #26): the plan of their own that entitles
 * them now (not an organization's), and their invoices, newest first. The caller is checked by the
 * endpoint; nobody is answered as no plan and no invoices.
 */
export async function personBilling(db: Db, userId: string): Promise<AdminPersonBilling> {
  const [plan, invoices] = await Promise.all([
    db
      .selectFrom('subscriptions')
      .select(['plan_code', 'status', 'current_period_end'])
      .where('user_id', '=', userId)
      .where('org_id', 'is', null)
      .where('status', 'in', [...entitlingStatuses])
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom('invoices')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(100)
      .execute(),
  ]);
  return {
    plan: plan ? { code: plan.plan_code, status: plan.status, current_period_end: iso(plan.current_period_end) } : null,
    invoices: invoices.map(invoiceSummary),
  };
}
