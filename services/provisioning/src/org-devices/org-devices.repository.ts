import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

import { listedDevices, type ListedDevice } from '../devices/devices.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The organization's devices as the list shows them (listedDevices), newest first: everyone's, or one person's. */
export function listedOrganizationDevices(db: Db, orgId: string, onlyOf: string | null): Promise<ListedDevice[]> {
  let query = listedDevices(db).where('devices.org_id', '=', orgId);
  if (onlyOf) query = query.where('devices.user_id', '=', onlyOf);
  return query.orderBy('devices.created_at', 'desc').orderBy('devices.id', 'desc').execute();
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
