import type { Kysely } from 'kysely';
import { AppError } from '@qw/contracts';
import type { Node, ProvisioningDatabase } from '../database.ts';
import { lockNode } from '../nodes/nodes.repository.ts';
import { nextAddress } from './address-rules.ts';
import { takenIpv4s } from './addresses.repository.ts';

/**
 * Leases the lowest free address of the node to a device, and answers the node as well. The node
 * row is read locked for the transaction, so two devices can never get the same address (the unique
 * index says so too).
 */
export async function leaseAddress(
  tx: Kysely<ProvisioningDatabase>,
  nodeId: string,
): Promise<{ node: Node; address: { ipv4: string; ipv6: string } }> {
  const node = await lockNode(tx, nodeId);
  if (!node) throw new Error(`node ${nodeId} does not exist`);
  const address = nextAddress(node, await takenIpv4s(tx, node.id));
  if (!address) throw new AppError('unavailable', 'This server is full. Try again in a few minutes.');
  return { node, address };
}
