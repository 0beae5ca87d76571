import type { Kysely } from 'kysely';
import type { EgressServer, PublicRegion } from '@qw/contracts';
import { nodeSubnets } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../database.ts';
import { peersPlaced } from '../nodes/nodes.repository.ts';
import { activeNodes, egressNodes } from './public-servers.repository.ts';
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

/**
 * The connection check's list (issue #25): each enrolled node that said where its traffic leaves
 * from, with its name, city, region and own resolver addresses. Server facts only; no caller.
 */
export async function egressServers(db: Kysely<ProvisioningDatabase>): Promise<{ servers: EgressServer[] }> {
  const nodes = await egressNodes(db);
  return {
    servers: nodes.map((node) => {
      const subnets = nodeSubnets(node.node_index);
      return {
        egress: node.egress,
        name: node.name,
        city: node.city,
        region: node.region,
        resolvers: [subnets.nodeIpv4, subnets.nodeIpv6],
      };
    }),
  };
}
