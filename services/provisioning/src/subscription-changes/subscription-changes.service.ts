import type { Kysely } from 'kysely';
import { entitlingStatuses, type Envelope } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { activePlanOf, entitlementUpdatedAt, keepEntitlement } from '../entitlements/entitlements.repository.ts';
import { suspendPersonalDevices } from '../devices/devices.repository.ts';
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
  const occurredAt = new Date(event.occurredAt);
  const before = await entitlementUpdatedAt(tx, subscriptionId);
  if (before && before > occurredAt) return;
  await keepEntitlement(tx, {
    subscription_id: subscriptionId,
    user_id: userId,
    org_id: orgId,
    plan_code: planCode,
    status,
    updated_at: occurredAt,
  });
  const entitling = (entitlingStatuses as readonly string[]).includes(status);
  if (orgId) {
    if (entitling) await reactivateOrganizationDevices(tx, orgId);
    else if (!(await activePlanOf(tx, { userId: null, orgId })))
      await suspendOrganizationDevices(tx, orgId, 'subscription_ended');
    return;
  }
  if (entitling || !userId) return;
  if (await activePlanOf(tx, { userId, orgId: null })) return;
  const suspended = await suspendPersonalDevices(tx, userId, 'subscription_ended');
  await recordSuspended(tx, suspended, 'subscription_ended', null);
}
