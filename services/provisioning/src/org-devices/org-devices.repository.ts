import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

import { likePattern, listedDevices, type ListedDevice } from '../devices/devices.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Which of the organization's devices a list asks for: everyone's or one person's, and a part of the name. */
export type OrgDeviceFilter = { onlyOf: string | null; q: string | null };

/** The filter as one condition on `devices` columns (for any query over devices). */
function matching(orgId: string, filter: OrgDeviceFilter) {
  return (eb: ExpressionBuilder<ProvisioningDatabase, 'devices'>) => {
    const conditions = [eb('devices.org_id', '=', orgId)];
    if (filter.onlyOf) conditions.push(eb('devices.user_id', '=', filter.onlyOf));
    if (filter.q) conditions.push(eb('devices.name', 'ilike', likePattern(filter.q)));
    return eb.and(conditions);
  };
}

/**
 * One page of the organization's devices as the list shows them (listedDevices), newest first:
 * one query, walking the `devices_org_created (org_id, created_at, id)` index backwards.
 */
export function listedOrganizationDevices(
  db: Db,
  orgId: string,
  filter: OrgDeviceFilter,
  page: { limit: number; offset: number },
): Promise<ListedDevice[]> {
  return listedDevices(db)
    .where(matching(orgId, filter))
    .orderBy('devices.created_at', 'desc')
    .orderBy('devices.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** How many devices the same filter finds in every page. */
export async function countListedOrganizationDevices(db: Db, orgId: string, filter: OrgDeviceFilter): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where(matching(orgId, filter))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the business Overview counts (connected by `connectedNow`): the rows' own columns, no telemetry. */
export function organizationDeviceStates(db: Db, orgId: string, onlyOf: string | null) {
  return db
    .selectFrom('devices')
    .select(['devices.is_active', 'devices.public_key', 'devices.latest_handshake'])
    .where(matching(orgId, { onlyOf, q: null }))
    .execute();
}

/** Everyone holding one of the organization's devices (a person removed a moment ago included). */
export async function assigneesOf(db: Db, orgId: string): Promise<string[]> {
  const rows = await db.selectFrom('devices').select('user_id').distinct().where('org_id', '=', orgId).execute();
  return rows.map((row) => row.user_id);
}

/** Each person's organization devices, in every organization (the 5 per person count them all). */
export async function organizationDeviceCounts(db: Db, people: string[]): Promise<Map<string, number>> {
  if (people.length === 0) return new Map();
  const rows = await db
    .selectFrom('devices')
    .select(['user_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('org_id', 'is not', null)
    .where('user_id', 'in', people)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((row) => [row.user_id, Number(row.n)]));
}

export async function countAssigneeDevices(db: Db, userId: string): Promise<number> {
  return (await organizationDeviceCounts(db, [userId])).get(userId) ?? 0;
}

export async function countOrganizationDevices(db: Db, orgId: string): Promise<number> {
  const row = await db
    .selectFrom('devices')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
