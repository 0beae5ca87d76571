import type { Kysely } from 'kysely';
import type { PublicRegion } from '@qw/contracts';
import type { ProvisioningDatabase } from '../database.ts';
import { peersPlaced } from '../nodes/nodes.repository.ts';
import { activeNodes } from './public-servers.repository.ts';
import { publicRegions } from './public-servers-rules.ts';

/** The public /servers list (no caller: anyone may ask), from the same rows the console's Servers page reads. */
export async function publicServers(db: Kysely<ProvisioningDatabase>): Promise<{ regions: PublicRegion[] }> {
  const nodes = await activeNodes(db);
  const placed = await peersPlaced(
    db,
    nodes.map((node) => node.id),
  );
  return { regions: publicRegions(nodes.map((node) => ({ ...node, placed: placed.get(node.id) ?? 0 }))) };
}
