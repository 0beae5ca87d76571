import { sql, type Kysely } from 'kysely';

/**
 * Issue #24: a node's desired peers come in pages in key order (`desiredPeerRows`). This index is
 * each page's walk: the node's active devices with a key, by key, read from the cursor for one
 * page. Without it each page read every device of the node (or of the table) and sorted them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index devices_node_key on devices (node_id, public_key)
            where is_active and public_key is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('devices_node_key').execute();
}
