import {
  blockingCategoriesOf,
  deviceActivated,
  deviceCreated,
  deviceMoved,
  deviceRemoved,
  devicePrivacyChanged,
  deviceRenamed,
  deviceSuspended,
  keyRequested,
  keyRotated,
  keysRevoked,
  nodePeerChanged,
} from '@qw/contracts';
import { addEventsToOutbox, addManyToOutbox, addToOutbox } from '@qw/platform/bus';
import { deviceAddressCidrs } from '@qw/wireguard';
import type { Kysely } from 'kysely';
import type { Device, ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * Every device change leaves provisioning as events, built here and only here: the services'
 * events (which name the device and its owner) and what the device's node is told on its own
 * subjects (a public key and addresses, nothing else). A device on a node always has a key and
 * addresses; one without a node has nothing for a node to do.
 */
type Placed = Device & { node_id: string; public_key: string; ipv4: string; ipv6: string };

function isPlaced(device: Device): device is Placed {
  return Boolean(device.node_id && device.public_key && device.ipv4 && device.ipv6);
}

function peer(device: Placed) {
  return {
    deviceId: device.id,
    nodeId: device.node_id,
    publicKey: device.public_key,
    allowedIps: deviceAddressCidrs(device.ipv4, device.ipv6),
  };
}

/**
 * Who a device belongs to, and who made the change (the audit log of its organization reads it):
 * the person who asked, or null for the system (a plan that ended, an organization suspended).
 */
export type Actor = string | null;
const owner = (device: Device, actorId: Actor) => ({ userId: device.user_id, orgId: device.org_id, actorId });

/** Why a device was switched off (its `suspended_reason`, and the reason its event carries). */
export type SuspensionReason =
  | 'owner'
  | 'manager'
  | 'admin'
  | 'subscription_ended'
  | 'organization_suspended'
  | 'account_suspended';

/** The names of the given nodes: the `{node}` of the subjects each is told on. */
async function nodeNames(tx: Db, nodeIds: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(nodeIds)];
  if (ids.length === 0) return new Map();
  const rows = await tx.selectFrom('nodes').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

async function tellNodesToAdd(tx: Db, devices: Placed[], replaces: (device: Placed) => string | null = () => null) {
  const names = await nodeNames(
    tx,
    devices.map((device) => device.node_id),
  );
  await addEventsToOutbox(
    tx,
    nodePeerChanged,
    devices.map((device) => ({
      data: {
        change: 'set' as const,
        publicKey: device.public_key,
        allowedIps: peer(device).allowedIps,
        replaces: replaces(device),
        ...(device.preshared_key_sealed ? { presharedKey: true } : {}),
      },
      params: { node: names.get(device.node_id) },
    })),
  );
}

async function tellNodesToRemove(tx: Db, removals: Array<{ nodeId: string; publicKey: string }>) {
  if (removals.length === 0) return;
  const names = await nodeNames(
    tx,
    removals.map((removal) => removal.nodeId),
  );
  await addEventsToOutbox(
    tx,
    nodePeerChanged,
    removals.map(({ nodeId, publicKey }) => ({
      data: { change: 'remove' as const, publicKey },
      params: { node: names.get(nodeId) },
    })),
  );
}

/**
 * Ends the grace period of keys scheduled rotations replaced, for these devices (suspended,
 * removed, revoked, or given a key by hand), or of every key whose grace period is over: their
 * peers leave their nodes and their addresses are free.
 */
export async function retireKeys(tx: Db, which: { deviceIds: string[] } | { endedBy: Date }): Promise<number> {
  if ('deviceIds' in which && which.deviceIds.length === 0) return 0;
  const retired = await tx
    .deleteFrom('retiring_keys')
    .where((eb) =>
      'deviceIds' in which ? eb('device_id', 'in', which.deviceIds) : eb('expires_at', '<=', which.endedBy),
    )
    .returning(['node_id', 'public_key'])
    .execute();
  await tellNodesToRemove(
    tx,
    retired.map((row) => ({ nodeId: row.node_id, publicKey: row.public_key })),
  );
  return retired.length;
}

/**
 * Ends the old peers that moves left on other nodes: those of these devices (suspended, removed,
 * revoked, given another key), those of devices just seen through the node they are on now
 * (`seenOn`: the new peer is live), or every one whose grace period is over. Each old peer leaves
 * its node and its address there is free.
 */
export async function endMovedPeers(
  tx: Db,
  which: { deviceIds: string[] } | { seenOn: string; deviceIds: string[] } | { endedBy: Date },
): Promise<number> {
  if ('deviceIds' in which && which.deviceIds.length === 0) return 0;
  const ended = await tx
    .deleteFrom('moved_peers')
    .where((eb) => {
      if ('endedBy' in which) return eb('expires_at', '<=', which.endedBy);
      if (!('seenOn' in which)) return eb('device_id', 'in', which.deviceIds);
      return eb(
        'device_id',
        'in',
        eb.selectFrom('devices').select('id').where('id', 'in', which.deviceIds).where('node_id', '=', which.seenOn),
      );
    })
    .returning(['node_id', 'public_key'])
    .execute();
  await tellNodesToRemove(
    tx,
    ended.map((row) => ({ nodeId: row.node_id, publicKey: row.public_key })),
  );
  return ended.length;
}

/** Everything a device kept on a node for a grace period (a rotated key, a moved peer) goes now. */
async function endGracePeers(tx: Db, deviceIds: string[]): Promise<void> {
  await retireKeys(tx, { deviceIds });
  await endMovedPeers(tx, { deviceIds });
}

export async function recordCreated(tx: Db, device: Device, actorId: Actor): Promise<void> {
  if (!isPlaced(device)) return;
  await addToOutbox(tx, deviceCreated, {
    ...peer(device),
    ...owner(device, actorId),
    name: device.name,
    platform: device.platform,
    isActive: device.is_active,
  });
  if (device.is_active) await tellNodesToAdd(tx, [device]);
}

/** Its content blocking or split tunnel changed (issue #25), for the organizations' audit log. */
export async function recordPrivacyChanged(tx: Db, device: Device, actorId: Actor): Promise<void> {
  await addToOutbox(tx, devicePrivacyChanged, {
    deviceId: device.id,
    ...owner(device, actorId),
    blocking: blockingCategoriesOf(device.blocking_mask),
    splitTunnel: device.split_tunnel,
  });
}

export async function recordRenamed(tx: Db, device: Device, actorId: Actor): Promise<void> {
  await addToOutbox(tx, deviceRenamed, { deviceId: device.id, ...owner(device, actorId), name: device.name });
}

/**
 * Devices that were active and are not any more: by their person, a manager of their
 * organization, an operator, a plan that ended or a Suspended organization.
 */
export async function recordSuspended(tx: Db, devices: Device[], reason: SuspensionReason, actorId: Actor) {
  const placed = devices.filter(isPlaced);
  await addManyToOutbox(
    tx,
    deviceSuspended,
    placed.map((device) => ({ ...peer(device), ...owner(device, actorId), reason })),
  );
  await tellNodesToRemove(
    tx,
    placed.map((device) => ({ nodeId: device.node_id, publicKey: device.public_key })),
  );
  await endGracePeers(
    tx,
    devices.map((device) => device.id),
  );
}

/** Devices active again: by a person, or all those an organization held when it is Active again. */
export async function recordActivated(tx: Db, devices: Device[], actorId: Actor): Promise<void> {
  const placed = devices.filter(isPlaced);
  await addManyToOutbox(
    tx,
    deviceActivated,
    placed.map((device) => ({ ...peer(device), ...owner(device, actorId) })),
  );
  if (placed.length > 0) await tellNodesToAdd(tx, placed);
}

/** Deleted devices: their peers leave their nodes (the deleted rows free their addresses). */
export async function recordRemoved(tx: Db, devices: Device[], actorId: Actor): Promise<void> {
  const onNodes = devices.filter((device): device is Device & { node_id: string } => Boolean(device.node_id));
  await addManyToOutbox(
    tx,
    deviceRemoved,
    onNodes.map((device) => ({
      deviceId: device.id,
      nodeId: device.node_id,
      publicKey: device.public_key,
      ...owner(device, actorId),
    })),
  );
  await tellNodesToRemove(
    tx,
    onNodes
      .filter((device) => device.is_active && device.public_key)
      .map((device) => ({ nodeId: device.node_id, publicKey: device.public_key! })),
  );
  await endGracePeers(
    tx,
    devices.map((device) => device.id),
  );
}

/**
 * A new key pair. By hand ("Request key"): the old key leaves the node in the same step as the
 * new one arrives, and so does any key still in a grace period. Scheduled (`keepPrevious`): the
 * new key arrives with its own address and the old one stays (a row of `retiring_keys` the
 * caller wrote) until its grace period ends.
 */
export async function recordKeyRotated(
  tx: Db,
  before: Device,
  after: Device,
  actorId: Actor,
  options: { keepPrevious?: boolean } = {},
): Promise<void> {
  if (!options.keepPrevious) await retireKeys(tx, { deviceIds: [after.id] });
  // A peer a move left behind holds the key this one replaces: it has no reason to stay.
  await endMovedPeers(tx, { deviceIds: [after.id] });
  if (!isPlaced(after)) return;
  await addToOutbox(tx, keyRequested, { deviceId: after.id, ...owner(after, actorId) });
  await addToOutbox(tx, keyRotated, {
    ...peer(after),
    ...owner(after, actorId),
    previousPublicKey: before.public_key,
    isActive: after.is_active,
  });
  if (after.is_active) await tellNodesToAdd(tx, [after], () => (options.keepPrevious ? null : before.public_key));
}

/**
 * An operator revoked the device's keys: its peer leaves the node at once (if it was there) and
 * telemetry forgets the key. The device keeps its node and address; its person gets a new key
 * with "Request key".
 */
export async function recordKeysRevoked(tx: Db, before: Device, actorId: Actor): Promise<void> {
  if (!before.node_id) return;
  await addToOutbox(tx, keysRevoked, {
    deviceId: before.id,
    nodeId: before.node_id,
    publicKey: before.public_key,
    ...owner(before, actorId),
  });
  if (before.is_active && before.public_key)
    await tellNodesToRemove(tx, [{ nodeId: before.node_id, publicKey: before.public_key }]);
  await endGracePeers(tx, [before.id]);
}

/**
 * The device moved to another node with its own key (moveDevice wrote `after`): telemetry maps
 * the key to the new node, and the new node is told to carry the peer when the device is on. The
 * old node is told nothing: its peer stays (a `moved_peers` row) until the device is seen through
 * the new node or the grace period ends.
 */
export async function recordMoved(tx: Db, before: Device, after: Device, actorId: Actor): Promise<void> {
  if (!isPlaced(after) || !before.node_id) return;
  await addToOutbox(tx, deviceMoved, {
    ...peer(after),
    ...owner(after, actorId),
    previousNodeId: before.node_id,
    isActive: after.is_active,
  });
  if (after.is_active) await tellNodesToAdd(tx, [after]);
}
