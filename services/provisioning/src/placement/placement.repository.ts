import { sql, type Kysely } from 'kysely';
import { nodeUnreachableAfterSeconds } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import type { PlacementCandidate } from './placement-rules.ts';

/**
 * Every node that may take new devices, oldest first, with how many devices are placed on it:
 * active (not pending, not retired), not draining (an operator's choice; a drain moves those on it), and
 * reachable by the database's clock (reported within `nodeUnreachableAfterSeconds`). `except`:
 * a node not to count (the one a device moves off).
 */
export async function placementCandidates(
  tx: Kysely<ProvisioningDatabase>,
  options: { except?: string | null } = {},
): Promise<PlacementCandidate[]> {
  let query = tx
    .selectFrom('nodes')
    .leftJoin('devices', 'devices.node_id', 'nodes.id')
    .select([
      'nodes.id',
      'nodes.region',
      'nodes.tags',
      'nodes.capacity',
      (eb) => eb.fn.count<string>('devices.id').as('devices'),
    ])
    .where('nodes.status', '=', 'active')
    .where('nodes.draining', '=', false)
    .where('nodes.last_seen_at', '>=', sql<Date>`now() - make_interval(secs => ${nodeUnreachableAfterSeconds})`)
    .groupBy('nodes.id')
    .orderBy('nodes.created_at')
    .orderBy('nodes.id');
  if (options.except) query = query.where('nodes.id', '<>', options.except);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    region: row.region,
    tags: row.tags,
    capacity: row.capacity,
    devices: Number(row.devices),
  }));
}
