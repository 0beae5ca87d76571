import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { connectDatabase, type Database } from '@qw/platform';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import type { ProvisioningDatabase } from '../src/database.ts';
import { organizationQuotaFacts } from '../src/org-devices/org-devices.repository.ts';

/**
 * `org_device_counts` (issue #24): the triggers on `devices` keep each organization's count per
 * person equal to counting the devices, whatever statement changes them: a bulk insert, a delete
 * of many, a device moved to another organization or person, two connections adding at once. The
 * organization list's quota facts read it.
 */
let database: TestDatabase;
let first: Database<ProvisioningDatabase>;
let second: Database<ProvisioningDatabase>;
let db: Kysely<ProvisioningDatabase>;
const [orgA, orgB] = [randomUUID(), randomUUID()];
const [ann, bob, cat] = [randomUUID(), randomUUID(), randomUUID()];

beforeAll(async () => {
  database = await createTestDatabase('orgcounts', undefined, { migrated: true });
  const url = await database.provision('provisioning');
  first = connectDatabase<ProvisioningDatabase>(url, 'provisioning');
  second = connectDatabase<ProvisioningDatabase>(url, 'provisioning');
  db = first.db;
});

afterAll(async () => {
  await first?.db.destroy();
  await second?.db.destroy();
  await database?.drop();
});

/** Adds `count` devices of `userId` (in `orgId`, or personal) in one statement. */
async function add(handle: Kysely<ProvisioningDatabase>, userId: string, orgId: string | null, count: number) {
  await sql`insert into devices (id, user_id, org_id, name, platform, is_active)
    select gen_random_uuid(), ${userId}::uuid, ${orgId}::uuid, 'Device ' || g, 'linux', true
      from generate_series(1, ${count}::int) g`.execute(handle);
}

/** The kept counts (rows above zero) and the devices counted now, both as "org/person": n. */
async function keptAndCounted() {
  const kept = await sql<{ key: string; n: number }>`
    select org_id || '/' || user_id as key, n from org_device_counts where n > 0 order by key`.execute(db);
  const counted = await sql<{ key: string; n: number }>`
    select org_id || '/' || user_id as key, count(*)::int as n from devices where org_id is not null
    group by org_id, user_id order by key`.execute(db);
  const zeros = await sql<{ n: number }>`select count(*)::int as n from org_device_counts where n <= 0`.execute(db);
  // A row that falls to zero goes: no id of someone without devices there stays.
  expect(zeros.rows[0]!.n).toBe(0);
  return {
    kept: Object.fromEntries(kept.rows.map((row) => [row.key, row.n])),
    counted: Object.fromEntries(counted.rows.map((row) => [row.key, row.n])),
  };
}

describe('organization device counts', () => {
  it('follow bulk inserts and deletes, one statement each', async () => {
    await sql`insert into devices (id, user_id, org_id, name, platform, is_active)
      select gen_random_uuid(), u, o, 'Device', 'ios', true
        from (values (${ann}::uuid, ${orgA}::uuid, 10), (${bob}::uuid, ${orgA}::uuid, 5),
                     (${ann}::uuid, ${orgB}::uuid, 3), (${ann}::uuid, null::uuid, 12)) as v(u, o, k),
             generate_series(1, k)`.execute(db);
    let { kept, counted } = await keptAndCounted();
    expect(kept).toEqual({ [`${orgA}/${ann}`]: 10, [`${orgA}/${bob}`]: 5, [`${orgB}/${ann}`]: 3 });
    expect(kept).toEqual(counted);

    // Four of Ann's in A and two personal ones, in one statement.
    await sql`delete from devices where id in (
      (select id from devices where org_id = ${orgA} and user_id = ${ann} limit 4)
      union all (select id from devices where org_id is null and user_id = ${ann} limit 2))`.execute(db);
    ({ kept, counted } = await keptAndCounted());
    expect(kept[`${orgA}/${ann}`]).toBe(6);
    expect(kept).toEqual(counted);

    // Cat's two devices in B come and go: her row goes with them (the helper finds no zero row).
    await add(db, cat, orgB, 2);
    expect((await keptAndCounted()).kept[`${orgB}/${cat}`]).toBe(2);
    await sql`delete from devices where user_id = ${cat}`.execute(db);
    ({ kept, counted } = await keptAndCounted());
    expect(kept[`${orgB}/${cat}`]).toBeUndefined();
    expect(kept).toEqual(counted);
  });

  it('follow a device moved to another organization or person, and ignore other updates', async () => {
    await sql`update devices set org_id = ${orgB} where id in
      (select id from devices where org_id = ${orgA} and user_id = ${bob} limit 2)`.execute(db);
    await sql`update devices set org_id = ${orgA} where id =
      (select id from devices where org_id is null and user_id = ${ann} limit 1)`.execute(db);
    await sql`update devices set org_id = null where id =
      (select id from devices where org_id = ${orgB} and user_id = ${ann} limit 1)`.execute(db);
    await sql`update devices set user_id = ${cat} where id =
      (select id from devices where org_id = ${orgA} and user_id = ${ann} limit 1)`.execute(db);
    let { kept, counted } = await keptAndCounted();
    expect(kept).toEqual({
      [`${orgA}/${ann}`]: 6,
      [`${orgA}/${bob}`]: 3,
      [`${orgA}/${cat}`]: 1,
      [`${orgB}/${ann}`]: 2,
      [`${orgB}/${bob}`]: 2,
    });
    expect(kept).toEqual(counted);

    const before = await sql<{
      xmin: string;
    }>`select xmin::text from org_device_counts order by org_id, user_id`.execute(db);
    await sql`update devices set name = 'Renamed', latest_handshake = now(), org_id = org_id`.execute(db);
    const after = await sql<{
      xmin: string;
    }>`select xmin::text from org_device_counts order by org_id, user_id`.execute(db);
    // No count row was written by an update that moved nothing.
    expect(after.rows).toEqual(before.rows);
    ({ kept, counted } = await keptAndCounted());
    expect(kept).toEqual(counted);
  });

  it('stay right when two connections add to the same organization and person at once', async () => {
    await Promise.all([
      ...Array.from({ length: 10 }, () => add(first.db, bob, orgA, 2)),
      ...Array.from({ length: 10 }, () => add(second.db, bob, orgA, 3)),
    ]);
    const { kept, counted } = await keptAndCounted();
    expect(kept[`${orgA}/${bob}`]).toBe(3 + 50);
    expect(kept).toEqual(counted);
  });

  it("give the organization's list its quota facts: the organization's count and each person's in every organization", async () => {
    // Identity's copy: Ann and Bob are members; Cat holds a device and is not one (removed a moment ago).
    await sql`insert into org_members (org_id, user_id, role, is_member, last_event_id) values
      (${orgA}, ${ann}, 'owner', true, gen_random_uuid()), (${orgA}, ${bob}, 'member', true, gen_random_uuid())`.execute(
      db,
    );
    const facts = await organizationQuotaFacts(db, orgA, ann, true);
    const { counted } = await keptAndCounted();
    const inEvery = (person: string) =>
      Object.entries(counted)
        .filter(([key]) => key.endsWith(`/${person}`))
        .reduce((sum, [, n]) => sum + n, 0);
    expect(facts.organizationDevices).toBe(
      Object.entries(counted)
        .filter(([key]) => key.startsWith(`${orgA}/`))
        .reduce((sum, [, n]) => sum + n, 0),
    );
    expect(Object.fromEntries(facts.counts)).toEqual({ [ann]: inEvery(ann), [bob]: inEvery(bob), [cat]: inEvery(cat) });
    expect(facts.members.sort()).toEqual([ann, bob].sort());
  });
});
