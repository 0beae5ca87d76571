import type { Kysely } from 'kysely';
import { AppError } from '@qw/contracts';
import type { Node, ProvisioningDatabase } from '../database.ts';
import { nextAddress } from './address-rules.ts';
import { lockNodeLeases, takenIpv4s } from './addresses.repository.ts';

/**
 * Leases the lowest free address of the node to a device. The node row is locked for the
 * transaction, so two devices can never get the same address (the unique index says so too).
 */
export async function leaseAddress(
  tx: Kysely<ProvisioningDatabase>,
  node: Node,
): Promise<{ ipv4: string; ipv6: string }> {
  await lockNodeLeases(tx, node.id);
  const address = nextAddress(node, await takenIpv4s(tx, node.id));
  if (!address) throw new AppError('unavailable', 'This server is full. Try again in a few minutes.');
  return address;
}
