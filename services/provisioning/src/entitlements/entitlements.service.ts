import type { Kysely } from 'kysely';
import { entitlingStatuses, type Envelope } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { activePlanOf } from './entitlements.repository.ts';
import { recordSuspended } from '../device-events/device-events.ts';
import {
  lockOrganization,
  reactivateOrganizationDevices,
  suspendOrganizationDevices,
} from '../organizations/organizations.service.ts';

type Db = Kysely<ProvisioningDatabase>;
type SubscriptionState = {
  subscriptionId: string;
  userId: string | null;
  orgId: string | null;
  planCode: string;
  status: string;
};

/**
 * Keeps the subscription's state. When it ends, the devices under it are suspended: the person's
 * personal devices, or every device of the organization (which come back when it is paid again
 * and the organization is Active). An organization's devices never follow a personal plan, nor
 * the other way round.
 */
export async function applySubscription(tx: Db, event: Envelope<SubscriptionState>): Promise<void> {
  const { subscriptionId, userId, orgId, planCode, status } = event.data;
  if (orgId) await lockOrganization(tx, orgId);
  const before = await tx
    .selectFrom('entitlements')
    .select('updated_at')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  const occurredAt = new Date(event.occurredAt);
  if (before && new Date(before.updated_at) > occurredAt) return;
  await tx
    .insertInto('entitlements')
    .values({
      subscription_id: subscriptionId,
      user_id: userId,
      org_id: orgId,
      plan_code: planCode,
      status,
      updated_at: occurredAt,
    })
    .onConflict((oc) =>
      oc
        .column('subscription_id')
        .doUpdateSet({ user_id: userId, org_id: orgId, plan_code: planCode, status, updated_at: occurredAt }),
    )
    .execute();
  const entitling = (entitlingStatuses as readonly string[]).includes(status);
  if (orgId) {
    if (entitling) await reactivateOrganizationDevices(tx, orgId);
    else if (!(await activePlanOf(tx, { userId: null, orgId })))
      await suspendOrganizationDevices(tx, orgId, 'subscription_ended');
    return;
  }
  if (entitling || !userId) return;
  if (await activePlanOf(tx, { userId, orgId: null })) return;
  const suspended = await tx
    .updateTable('devices')
    .set({ is_active: false, suspended_reason: 'subscription_ended' })
    .where('is_active', '=', true)
    .where('user_id', '=', userId)
    .where('org_id', 'is', null)
    .returningAll()
    .execute();
  await recordSuspended(tx, suspended, 'subscription_ended', null);
}
