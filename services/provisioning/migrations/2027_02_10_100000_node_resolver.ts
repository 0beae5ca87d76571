import { sql, type Kysely } from 'kysely';

/**
 * Each node's own resolver (issue #25), as its agent's latest report said: `resolver_state`
 * (answering, starting, not_answering, down, off) and `resolver_restarts` (times the agent started
 * it again since the agent started). Null until an agent that runs a resolver reports. Nothing
 * about what the resolver answered is ever stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('nodes')
    .addColumn('resolver_state', 'text', (c) =>
      c.check(sql`resolver_state in ('answering', 'starting', 'not_answering', 'down', 'off')`),
    )
    .addColumn('resolver_restarts', 'integer', (c) => c.check(sql`resolver_restarts >= 0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('nodes').dropColumn('resolver_state').dropColumn('resolver_restarts').execute();
}
