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
