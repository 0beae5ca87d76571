import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError, regionLabel, type RegionChoice } from '@qw/contracts';
import { generateKeyPair, type SealingKeys } from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import type { DevicePrivacy } from '../devices/device-privacy-rules.ts';
import { queueConfigMail } from '../device-events/config-mail-job.ts';
import { newPresharedKey } from '../keys/preshared-keys.ts';
import { recordCreated } from '../device-events/device-events.ts';
import { requireUnusedPublicKey } from '../nodes/peer-keys.ts';
import { leaseAddress } from '../addresses/addresses.service.ts';
import { placementDecision, type PlacementRequest } from './placement-rules.ts';
import { placementCandidates } from './placement.repository.ts';

export type NewDevice = {
  userId: string;
  orgId: string | null;
  name: string;
  platform: string;
  /** The browser's public key; without it the service makes the pair and seals the private key. */
  publicKey: string | undefined;
  plan: string;
  /** The region the customer chose, or `auto` (nearest `country`, then the others). */
  regionChoice: RegionChoice;
  /** ISO 3166-1 alpha-2, upper case (see `validCountry`); null when not given. */
  country: string | null;
  actorId: string;
  vault: SealingKeys;
  /** Content blocking and split tunnel from the add form (`defaultPrivacy` when it said nothing). */
  privacy: DevicePrivacy;
};

/**
 * The node a device goes to (placement-rules.ts), among the nodes that take devices now; refused
 * with 409 `region_full` when its chosen region has no room (another has), 503 when none has.
 */
export async function nodeForPlacement(
  tx: Kysely<ProvisioningDatabase>,
  request: PlacementRequest,
  options: { except?: string | null } = {},
): Promise<string> {
  const decision = placementDecision(await placementCandidates(tx, options), request);
  if ('node' in decision) return decision.node.id;
  if (decision.refused === 'region_full')
    throw new AppError(
      'region_full',
      `No server in ${regionLabel(decision.region)} has room right now. Choose another region or Automatic.`,
      { field: 'region', region: decision.region },
    );
  throw new AppError('unavailable', 'No VPN server is available right now. Try again in a few minutes.');
}

/**
 * Places a new device (its region choice first, gaming-tagged nodes first for Gaming, then the
 * least-loaded node), leases its address, gives it an id, makes its keys (or takes the browser's
 * public key), records it and queues its mail. Inside the transaction that decided the device
 * may be added.
 */
export async function placeDevice(
  tx: Kysely<ProvisioningDatabase>,
  input: NewDevice,
): Promise<{ device: Device; node: Node }> {
  const nodeId = await nodeForPlacement(tx, { plan: input.plan, choice: input.regionChoice, country: input.country });
  const { node, address } = await leaseAddress(tx, nodeId);
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
      ...newPresharedKey(input.vault, id),
      client_keys: keys.privateKey === null,
      node_id: node.id,
      ipv4: address.ipv4,
      ipv6: address.ipv6,
      key_created_at: new Date(),
      region_choice: input.regionChoice,
      country: input.country,
      ...input.privacy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordCreated(tx, device, input.actorId);
  await queueConfigMail(tx, device, false);
  return { device, node };
}
