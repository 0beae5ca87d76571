import type { Kysely } from 'kysely';
import type { Node, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** The node a placed device is on (placed devices always have one). */
export function nodeOf(db: Db, nodeId: string): Promise<Node> {
  return db.selectFrom('nodes').selectAll().where('id', '=', nodeId).executeTakeFirstOrThrow();
}

export async function nodesById(db: Db, ids: Array<string | null>): Promise<Map<string, Node>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (wanted.length === 0) return new Map();
  const nodes = await db.selectFrom('nodes').selectAll().where('id', 'in', wanted).execute();
  return new Map(nodes.map((node) => [node.id, node]));
}
