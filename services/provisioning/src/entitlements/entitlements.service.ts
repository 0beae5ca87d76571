import type { Kysely } from 'kysely';
import { deviceSuspended, type Envelope } from '@qw/contracts';
import { addManyToOutbox } from '@qw/platform/bus';
import { deviceAddressCidrs } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../database.ts';
import { entitledStatuses } from '../devices/device-rules.ts';

type Db = Kysely<ProvisioningDatabase>;
type SubscriptionState = { subscriptionId: string; userId: string | null; orgId: string | null; planCode: string; status: string };

/** Keeps the subscription's state; when it ends, the owner's devices under it are suspended. */
export async function applySubscription(tx: Db, event: Envelope<SubscriptionState>): Promise<void> {
  const { subscriptionId, userId, orgId, planCode, status } = event.data;
  const before = await tx.selectFrom('entitlements').select('updated_at').where('subscription_id', '=', subscriptionId).executeTakeFirst();
  const occurredAt = new Date(event.occurredAt);
  if (before && new Date(before.updated_at) > occurredAt) return;
  await tx.insertInto('entitlements').values({ subscription_id: subscriptionId, user_id: userId, org_id: orgId, plan_code: planCode, status, updated_at: occurredAt })
    .onConflict((oc) => oc.column('subscription_id').doUpdateSet({ user_id: userId, org_id: orgId, plan_code: planCode, status, updated_at: occurredAt }))
    .execute();
  if ((entitledStatuses as readonly string[]).includes(status) || !userId) return;
  if (await activePlanOf(tx, { userId, orgId })) return;
  // An organization can hold hundreds of devices: one update and one outbox insert for all of them.
  let suspend = tx.updateTable('devices').set({ is_active: false }).where('is_active', '=', true);
  suspend = orgId ? suspend.where('org_id', '=', orgId) : suspend.where('user_id', '=', userId).where('org_id', 'is', null);
  const suspended = await suspend.returningAll().execute();
  await addManyToOutbox(tx, deviceSuspended, suspended
    .filter((device) => device.node_id && device.public_key)
    .map((device) => ({
      deviceId: device.id, nodeId: device.node_id!, publicKey: device.public_key!, allowedIps: deviceAddressCidrs(device.ipv4!, device.ipv6!),
      userId: device.user_id, orgId: device.org_id, reason: 'subscription_ended' as const,
    })));
}

/** The plan that entitles the owner to devices, or null: personal (org null) or the organization's. */
export async function activePlanOf(db: Db, owner: { userId: string; orgId: string | null }): Promise<string | null> {
  let query = db.selectFrom('entitlements').select('plan_code').where('status', 'in', [...entitledStatuses]);
  query = owner.orgId ? query.where('org_id', '=', owner.orgId) : query.where('user_id', '=', owner.userId).where('org_id', 'is', null);
  const row = await query.orderBy('updated_at', 'desc').limit(1).executeTakeFirst();
  return row?.plan_code ?? null;
}
