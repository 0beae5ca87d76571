import { sql, type Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

/** The enrolled nodes (neither pending nor retired), with only what the public list reads. */
export function activeNodes(db: Kysely<ProvisioningDatabase>) {
  return db
    .selectFrom('nodes')
    .select(['id', 'region', 'city', 'status', 'draining', 'last_seen_at', 'tags', 'capacity'])
    .where('status', '=', 'active')
    .execute();
}

/** The enrolled nodes that said their egress addresses, with what the connection check names. */
export function egressNodes(db: Kysely<ProvisioningDatabase>) {
  return db
    .selectFrom('nodes')
    .select(['name', 'city', 'region', 'node_index', 'egress'])
    .where('status', '=', 'active')
    .where(sql<boolean>`cardinality(egress) > 0`)
    .orderBy('name')
    .execute();
}
