import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';
import type { PlacementCandidate } from './placement-rules.ts';

/** Every node that takes new devices, oldest first, with how many devices it holds. */
export async function placementCandidates(tx: Kysely<ProvisioningDatabase>): Promise<PlacementCandidate[]> {
  const rows = await tx
    .selectFrom('nodes')
    .leftJoin('devices', 'devices.node_id', 'nodes.id')
    .select(['nodes.id', 'nodes.tags', (eb) => eb.fn.count<string>('devices.id').as('devices')])
    // A drained node takes no new devices (an operator's choice); those on it stay.
    .where('nodes.draining', '=', false)
    .groupBy('nodes.id')
    .orderBy('nodes.created_at')
    .execute();
  return rows.map((row) => ({ id: row.id, tags: row.tags, devices: Number(row.devices) }));
}
