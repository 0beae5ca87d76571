import type { Kysely } from 'kysely';
import type { Envelope } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { activePlanOf } from '../entitlements/entitlements.repository.ts';
import { recordActivated, recordSuspended } from '../device-events/device-events.ts';
import { isNewerEvent } from '../organizations/org-device-rules.ts';
import { organizationSuspension } from '../organizations/organizations.service.ts';
import { accountSuspendedRefusal, afterAccountLifted, heldByAccount } from './account-standing-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Whether the operator holds the person's account suspended, as identity's newest event said. */
export async function accountSuspended(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('account_suspensions')
    .select('suspended')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.suspended === true;
}

/** Refuses adding or switching on a device of a suspended account (`whose`: the caller's own or another's). */
export async function requireAccountInGoodStanding(db: Db, userId: string, whose: 'own' | 'other'): Promise<void> {
  if (await accountSuspended(db, userId)) throw accountSuspendedRefusal(whose);
}

/**
 * Identity's event: the account is suspended (every device of the person goes off, held by the
 * operator's level, and those a plan or organization held are taken over), or lifted (the devices
 * it held come back where their plan or organization allows, and are otherwise held by that). An
 * event older than the last applied changes nothing.
 */
export async function applyAccountSuspension(
  tx: Db,
  event: Envelope<{ userId: string; suspended: boolean }>,
): Promise<void> {
  const { userId, suspended } = event.data;
  const known = await tx
    .selectFrom('account_suspensions')
    .select('last_event_id')
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  if (known && !isNewerEvent(known.last_event_id, event.id)) return;
  await tx
    .insertInto('account_suspensions')
    .values({ user_id: userId, suspended, last_event_id: event.id })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ suspended, last_event_id: event.id }))
    .execute();
  if (suspended) await holdAccountDevices(tx, userId);
  else await releaseAccountDevices(tx, userId);
}

async function holdAccountDevices(tx: Db, userId: string): Promise<void> {
  const devices = await tx.selectFrom('devices').selectAll().where('user_id', '=', userId).forUpdate().execute();
  const taken = devices.filter(heldByAccount);
  if (taken.length === 0) return;
  const after = await tx
    .updateTable('devices')
    .set({ is_active: false, suspended_reason: 'account_suspended', suspended_by: 'operator' })
    .where(
      'id',
      'in',
      taken.map((device) => device.id),
    )
    .returningAll()
    .execute();
  const wereOn = new Set(taken.filter((device) => device.is_active).map((device) => device.id));
  // Only the devices that were on leave their nodes; the others were off already.
  await recordSuspended(
    tx,
    after.filter((device) => wereOn.has(device.id)),
    'account_suspended',
    null,
  );
}

async function releaseAccountDevices(tx: Db, userId: string): Promise<void> {
  const held = await tx
    .selectFrom('devices')
    .selectAll()
    .where('user_id', '=', userId)
    .where('suspended_reason', '=', 'account_suspended')
    .forUpdate()
    .execute();
  const activated = [];
  for (const device of held) {
    const organizationSuspended = device.org_id ? (await organizationSuspension(tx, device.org_id)) !== null : false;
    const entitled =
      (await activePlanOf(tx, device.org_id ? { userId: null, orgId: device.org_id } : { userId, orgId: null })) !==
      null;
    const next = afterAccountLifted({ orgId: device.org_id, entitled, organizationSuspended });
    const after = await tx
      .updateTable('devices')
      .set(
        next.is_active
          ? { is_active: true, suspended_reason: null, suspended_by: null }
          : { is_active: false, suspended_reason: next.suspended_reason, suspended_by: null },
      )
      .where('id', '=', device.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (after.is_active) activated.push(after);
  }
  await recordActivated(tx, activated, null);
}
