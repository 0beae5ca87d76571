import { sql, type Kysely } from 'kysely';

/**
 * Issue #24: how many of an organization's devices each person holds, kept by the database as
 * devices come and go, so the organization's list reads its quota (the organization's count, each
 * member's count in every organization) from a few rows instead of counting every device on each
 * request. Triggers keep it: after each insert or delete statement, one grouped upsert from the
 * statement's rows (a bulk insert of many devices is one upsert per organization and person,
 * taken in key order); after an update that moves a device to another organization or person,
 * one row each way. A row that falls to zero is deleted (no id of a person who has none stays).
 *
 * The functions keep the migration's search path (the service's schema), whoever's statement
 * fires them. The devices table is locked against writes while the counts are first filled, so a device added
 * meanwhile by another replica is counted by the trigger or by the fill, never by neither.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`lock table devices in share row exclusive mode`.execute(db);
  await sql`create table org_device_counts (
    org_id uuid not null,
    user_id uuid not null,
    n integer not null,
    primary key (org_id, user_id)
  )`.execute(db);
  await sql`create index org_device_counts_user on org_device_counts (user_id)`.execute(db);
  await sql`insert into org_device_counts (org_id, user_id, n)
    select org_id, user_id, count(*) from devices where org_id is not null group by org_id, user_id`.execute(db);

  await sql`create function org_device_counts_added() returns trigger language plpgsql set search_path from current as $$
    begin
      insert into org_device_counts (org_id, user_id, n)
        select org_id, user_id, count(*) from added where org_id is not null
        group by org_id, user_id order by org_id, user_id
      on conflict (org_id, user_id) do update set n = org_device_counts.n + excluded.n;
      return null;
    end $$`.execute(db);
  await sql`create function org_device_counts_removed() returns trigger language plpgsql set search_path from current as $$
    begin
      update org_device_counts c set n = c.n - r.n
        from (select org_id, user_id, count(*) as n from removed where org_id is not null
              group by org_id, user_id) as r
        where c.org_id = r.org_id and c.user_id = r.user_id;
      delete from org_device_counts c using removed r
        where c.org_id = r.org_id and c.user_id = r.user_id and c.n <= 0;
      return null;
    end $$`.execute(db);
  await sql`create function org_device_counts_moved() returns trigger language plpgsql set search_path from current as $$
    begin
      if old.org_id is not null then
        update org_device_counts set n = n - 1 where org_id = old.org_id and user_id = old.user_id;
        delete from org_device_counts where org_id = old.org_id and user_id = old.user_id and n <= 0;
      end if;
      if new.org_id is not null then
        insert into org_device_counts (org_id, user_id, n) values (new.org_id, new.user_id, 1)
        on conflict (org_id, user_id) do update set n = org_device_counts.n + 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger org_device_counts_added after insert on devices
    referencing new table as added for each statement execute function org_device_counts_added()`.execute(db);
  await sql`create trigger org_device_counts_removed after delete on devices
    referencing old table as removed for each statement execute function org_device_counts_removed()`.execute(db);
  // Only an update that names either column and changes it: telemetry's handshakes and every
  // other update of a device never reach the function.
  await sql`create trigger org_device_counts_moved after update of org_id, user_id on devices
    for each row when (old.org_id is distinct from new.org_id or old.user_id is distinct from new.user_id)
    execute function org_device_counts_moved()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger org_device_counts_moved on devices`.execute(db);
  await sql`drop trigger org_device_counts_removed on devices`.execute(db);
  await sql`drop trigger org_device_counts_added on devices`.execute(db);
  await sql`drop function org_device_counts_moved()`.execute(db);
  await sql`drop function org_device_counts_removed()`.execute(db);
  await sql`drop function org_device_counts_added()`.execute(db);
  await sql`drop table org_device_counts`.execute(db);
}
