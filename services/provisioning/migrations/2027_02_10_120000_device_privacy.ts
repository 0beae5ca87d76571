import { sql, type Kysely } from 'kysely';

/**
 * Tunnel privacy per device (issue #25): content blocking as a five-bit mask (0, the default, is
 * none: blocking changes which names resolve, so it is the person's choice to make) and the split
 * tunnel preset with, for `custom` only, its routes (canonical CIDRs). Both are written into the
 * device's config: the DNS line names the resolver of its mask, AllowedIPs follows the preset.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('blocking_mask', 'smallint', (c) => c.notNull().defaultTo(0).check(sql`blocking_mask between 0 and 31`))
    .addColumn('split_tunnel', 'text', (c) =>
      c.notNull().defaultTo('all').check(sql`split_tunnel in ('all', 'except_local', 'custom')`),
    )
    .addColumn('custom_routes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
  await db.schema
    .alterTable('devices')
    .addCheckConstraint(
      'devices_custom_routes_only_custom',
      sql`(split_tunnel = 'custom') = (cardinality(custom_routes) between 1 and 32)`,
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropConstraint('devices_custom_routes_only_custom').execute();
  await db.schema
    .alterTable('devices')
    .dropColumn('custom_routes')
    .dropColumn('split_tunnel')
    .dropColumn('blocking_mask')
    .execute();
}
