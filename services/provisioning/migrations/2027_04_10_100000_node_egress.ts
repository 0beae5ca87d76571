import { sql, type Kysely } from 'kysely';

/**
 * Each node's egress (issue #25): the public addresses its tunnel traffic leaves from (the node
 * NATs its peers out), as its agent says when it registers (NODE_EGRESS, or NODE_IP). The
 * gateway's connection check compares a request's source with these. Server addresses only:
 * nothing about a device or a visitor is stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('nodes')
    .addColumn('egress', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('nodes').dropColumn('egress').execute();
}
