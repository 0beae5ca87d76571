import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

/** The enrolled nodes (neither pending nor retired), with only what the public list reads. */
export function activeNodes(db: Kysely<ProvisioningDatabase>) {
  return db
    .selectFrom('nodes')
    .select(['id', 'region', 'city', 'status', 'draining', 'last_seen_at', 'tags', 'capacity'])
    .where('status', '=', 'active')
    .execute();
}
