import type { Kysely } from 'kysely';
import { entitlingStatuses } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The plan that entitles the owner to devices, or null: an organization's, or a person's personal plan. */
export async function activePlanOf(
  db: Db,
  owner: { userId: string | null; orgId: string | null },
): Promise<string | null> {
  let query = db
    .selectFrom('entitlements')
    .select('plan_code')
    .where('status', 'in', [...entitlingStatuses]);
  if (owner.orgId) query = query.where('org_id', '=', owner.orgId);
  else if (owner.userId) query = query.where('user_id', '=', owner.userId).where('org_id', 'is', null);
  else return null;
  const row = await query.orderBy('updated_at', 'desc').limit(1).executeTakeFirst();
  return row?.plan_code ?? null;
}

/** When billing's newest applied event about the subscription happened, if any was applied. */
export async function entitlementUpdatedAt(db: Db, subscriptionId: string): Promise<Date | null> {
  const row = await db
    .selectFrom('entitlements')
    .select('updated_at')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  return row ? new Date(row.updated_at) : null;
}

export async function keepEntitlement(
  db: Db,
  row: {
    subscription_id: string;
    user_id: string | null;
    org_id: string | null;
    plan_code: string;
    status: string;
    updated_at: Date;
  },
): Promise<void> {
  const { subscription_id: _id, ...changes } = row;
  await db
    .insertInto('entitlements')
    .values(row)
    .onConflict((oc) => oc.column('subscription_id').doUpdateSet(changes))
    .execute();
}
