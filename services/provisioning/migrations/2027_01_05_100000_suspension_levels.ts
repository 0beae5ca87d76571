import { sql, type Kysely } from 'kysely';

/**
 * Suspensions have levels (issue #20): who holds a device off, 'person', 'organization' or
 * 'operator'; only that level or a higher one lifts it. Null while active, and while only its
 * plan's end or its organization's suspension holds it (`suspended_reason` says which). Devices
 * already off keep the level their reason named.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('suspended_by', 'text', (c) =>
      c.check(sql`suspended_by in ('person', 'organization', 'operator') and not is_active or suspended_by is null`),
    )
    .execute();
  await sql`update devices set suspended_by = case suspended_reason
              when 'owner' then 'person' when 'manager' then 'organization' when 'admin' then 'operator' end
            where not is_active`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('suspended_by').execute();
}
