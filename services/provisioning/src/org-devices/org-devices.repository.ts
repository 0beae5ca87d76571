import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import { entitlingStatuses } from '@qw/contracts';
import { builtPerShape, pageLiterals, type PageBounds } from '@qw/platform/db';
import type { ProvisioningDatabase } from '../database.ts';
import { memberRowQuery, type MembershipRow } from '../organizations/organizations.service.ts';

import { deviceStateColumns, likePattern, listedDevices, type ListedDevice } from '../devices/devices.repository.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Which of the organization's devices a list asks for: everyone's or one person's, and a part of the name. */
export type OrgDeviceFilter = { onlyOf: string | null; q: string | null };

/** The filter as one condition on `devices` columns (for any query over devices). */
function matching(orgId: string, filter: OrgDeviceFilter) {
  return matchingPattern(orgId, filter.onlyOf, filter.q ? likePattern(filter.q) : null);
}

/** The same with the name's `ilike` pattern made already (a built-once query's value). */
function matchingPattern(orgId: string, onlyOf: string | null, pattern: string | null) {
  return (eb: ExpressionBuilder<ProvisioningDatabase, 'devices'>) => {
    const conditions = [eb('devices.org_id', '=', orgId)];
    if (onlyOf) conditions.push(eb('devices.user_id', '=', onlyOf));
    if (pattern) conditions.push(eb('devices.name', 'ilike', pattern));
    return eb.and(conditions);
  };
}

/**
 * A page of the organization's devices for one shape of filter (everyone's or one person's, with
 * or without a part of the name) and one page (its bounds in the text: `pageLiterals`), built once
 * per shape (`builtPerShape`). Its values, in order: the organization, the person when
 * `byPerson`, the name's `ilike` pattern when `byName`.
 */
const organizationPage = builtPerShape(
  (db: Db, shape: { byPerson: boolean; byName: boolean; page: PageBounds }, ...values: unknown[]) => {
    const [orgId, ...rest] = values as [string, ...unknown[]];
    const person = shape.byPerson ? (rest.shift() as string) : null;
    const pattern = shape.byName ? (rest.shift() as string) : null;
    const { limit, offset } = pageLiterals(shape.page);
    return listedDevices(db)
      .where(matchingPattern(orgId, person, pattern))
      .orderBy('devices.created_at', 'desc')
      .orderBy('devices.id', 'desc')
      .limit(limit)
      .offset(offset);
  },
);

/**
 * One page of the organization's devices as the list shows them (listedDevices), newest first:
 * one query, walking the `devices_org_created (org_id, created_at, id)` index backwards. kysely
 * built this query anew for every request (4% of the route's CPU under load, issue #24); it is
 * now built once per shape of filter.
 */
export function listedOrganizationDevices(
  db: Db,
  orgId: string,
  filter: OrgDeviceFilter,
  page: PageBounds,
): Promise<ListedDevice[]> {
  const values: unknown[] = [orgId];
  if (filter.onlyOf) values.push(filter.onlyOf);
  if (filter.q) values.push(likePattern(filter.q));
  const shape = { byPerson: Boolean(filter.onlyOf), byName: Boolean(filter.q), page };
  return organizationPage(db, shape, ...values);
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
    .select(deviceStateColumns)
    .where(matching(orgId, { onlyOf, q: null }))
    .execute();
}

/** What an organization's quota answer is made of, read in one query (organizationQuotaFacts). */
export type OrganizationQuotaFacts = {
  /** The caller, and with `everyone` each member as identity's events said. */
  members: string[];
  /** Each person's organization devices, in every organization (the 5 per person count them all). */
  counts: Map<string, number>;
  organizationDevices: number;
  /** The plan that entitles the organization's devices, from the copy of billing's subscriptions. */
  plan: string | null;
};

/**
 * The quota's facts in one round trip (a list request's cost is mostly its queries' writes to
 * Postgres): the members, the device counts of the members and of everyone holding one of the
 * organization's devices (a person removed a moment ago included), the organization's device
 * count and its entitling plan. Without `everyone` (a member's own view), only the caller counts.
 * The counts come from `org_device_counts` (kept by triggers as devices come and go, a row at zero
 * deleted): a few rows per request, where counting the devices read every one of the
 * organization's (issue #24).
 */
export async function organizationQuotaFacts(
  db: Db,
  orgId: string,
  callerId: string,
  everyone: boolean,
): Promise<OrganizationQuotaFacts> {
  const { rows } = await sql<QuotaFactsRow>`
    with ${quotaFactsParts(orgId, callerId, sql<boolean>`${everyone}::boolean`)}
    select ${quotaFactsColumns(orgId)}`.execute(db);
  return quotaFactsOf(rows[0]!);
}

/**
 * The caller's member row (with its organization's columns) and the quota's facts in one
 * statement: an organization's page needs both before it is read, and every statement a request
 * saves is a write to Postgres's socket and a wake-up of its process saved (issue #24). Whether
 * the facts are everyone's is decided in the statement from the row's role: everyone's when it is
 * one of `seeingRoles`; the caller's alone otherwise, and when the copy holds no membership (the
 * caller then asks identity, and reads the facts again if identity says they are a member).
 */
export async function membershipWithQuotaFacts(
  db: Db,
  orgId: string,
  callerId: string,
  seeingRoles: readonly string[],
): Promise<{ member: MembershipRow | null; facts: OrganizationQuotaFacts }> {
  const sees = sql<boolean>`coalesce((select is_member and role::text = any(${[...seeingRoles]}::text[]) from me), false)`;
  const { rows } = await sql<QuotaFactsRow & { member: MembershipRow | null }>`
    with me as ${memberRowQuery(db, orgId, callerId)}, ${quotaFactsParts(orgId, callerId, sees)}
    select (select row_to_json(me) from me) as member, ${quotaFactsColumns(orgId)}`.execute(db);
  const row = rows[0]!;
  return { member: row.member, facts: quotaFactsOf(row) };
}

type QuotaFactsRow = {
  members: string[];
  counts: Array<{ user_id: string; n: number }> | null;
  devices: string;
  plan: string | null;
};

/** The facts' common table expressions: who counts (`everyone`: every member, or the caller alone). */
function quotaFactsParts(orgId: string, callerId: string, everyone: RawBuilder<boolean>) {
  return sql`members as (
      select ${callerId}::uuid as user_id
      union
      select user_id from org_members where ${everyone} and org_id = ${orgId} and is_member
    ), people as (
      select user_id from members
      union
      select user_id from org_device_counts where ${everyone} and org_id = ${orgId}
    )`;
}

/** The facts themselves, from those expressions. */
function quotaFactsColumns(orgId: string) {
  return sql`(select json_agg(user_id) from members) as members,
           (select json_agg(json_build_object('user_id', c.user_id, 'n', c.n))
              from (select user_id, sum(n)::int as n from org_device_counts
                    where user_id in (select user_id from people)
                    group by user_id) as c) as counts,
           (select coalesce(sum(n), 0) from org_device_counts where org_id = ${orgId}) as devices,
           (select plan_code from entitlements
              where org_id = ${orgId} and status = any(${[...entitlingStatuses]}::text[])
              order by updated_at desc limit 1) as plan`;
}

function quotaFactsOf(row: QuotaFactsRow): OrganizationQuotaFacts {
  return {
    members: row.members,
    counts: new Map((row.counts ?? []).map((count) => [count.user_id, count.n])),
    organizationDevices: Number(row.devices),
    plan: row.plan,
  };
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
