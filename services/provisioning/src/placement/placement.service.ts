import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError } from '@qw/contracts';
import { generateKeyPair, type SealingKeys } from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import { queueConfigMail } from '../device-events/config-mail-job.ts';
import { recordCreated } from '../device-events/device-events.ts';
import { requireUnusedPublicKey } from '../nodes/peer-keys.ts';
import { leaseAddress } from '../addresses/addresses.service.ts';
import { chooseNode } from './placement-rules.ts';
import { placementCandidates } from './placement.repository.ts';

export type NewDevice = {
  userId: string;
  orgId: string | null;
  name: string;
  platform: string;
  /** The browser's public key; without it the service makes the pair and seals the private key. */
  publicKey: string | undefined;
  plan: string;
  actorId: string;
  vault: SealingKeys;
};

/**
 * Places a new device on the least-loaded node (gaming-tagged first for Gaming), leases its
 * address, gives it an id, makes its keys (or takes the browser's public key), records it and
 * queues its mail. Inside the transaction that decided the device may be added.
 */
export async function placeDevice(
  tx: Kysely<ProvisioningDatabase>,
  input: NewDevice,
): Promise<{ device: Device; node: Node }> {
  const chosen = chooseNode(await placementCandidates(tx), input.plan);
  if (!chosen) throw new AppError('unavailable', 'No VPN server is available right now. Try again in a few minutes.');
  const { node, address } = await leaseAddress(tx, chosen.id);
  const id = randomUUID();
  if (input.publicKey) await requireUnusedPublicKey(tx, input.publicKey, id);
  const keys = input.publicKey ? { publicKey: input.publicKey, privateKey: null } : generateKeyPair();
  const sealed = keys.privateKey ? input.vault.seal(keys.privateKey, id) : null;
  const device = await tx
    .insertInto('devices')
    .values({
      id,
      user_id: input.userId,
      org_id: input.orgId,
      name: input.name,
      platform: input.platform,
      public_key: keys.publicKey,
      private_key_sealed: sealed?.sealed ?? null,
      private_key_sealed_by: sealed?.keyId ?? null,
      client_keys: keys.privateKey === null,
      node_id: node.id,
      ipv4: address.ipv4,
      ipv6: address.ipv6,
      key_created_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordCreated(tx, device, input.actorId);
  await queueConfigMail(tx, device, false);
  return { device, node };
}
