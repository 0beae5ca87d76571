import { sql, type Kysely } from 'kysely';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import { leaseAddress } from '../addresses/addresses.service.ts';
import { queueMovedMail } from '../device-events/config-mail-job.ts';
import { type Actor, recordMoved, retireKeys } from '../device-events/device-events.ts';
import { updateDevice } from '../devices/devices.repository.ts';
import { nodeOf } from '../nodes/nodes.repository.ts';

/** How long the peer a moved device left behind stays on its old node when the device is never seen through the new one. */
export const movedPeerGraceDays = 7;

/**
 * Moves a device to another node with its own key: an address leased on the target node (locked
 * for the transaction), the device's node and addresses changed, `config_changed_at` set (its
 * configuration names the old Endpoint and server key) and its hold lifted. An active device's
 * old peer stays on the old node with its old address (a `moved_peers` row, for
 * `movedPeerGraceDays` at most) so it keeps working until its person loads the new configuration;
 * the new node is told to carry the peer, telemetry to count it there, and the person is mailed to
 * download the configuration again.
 *
 * A suspended device moves too (so it comes back where it was asked to be) but leaves no peer
 * behind and gets no mail: it is on no node while suspended. A device whose keys were revoked
 * moves with no peer at all. Keys a scheduled rotation keeps in their grace period end here: they
 * are on the old node, where the device no longer is.
 *
 * The caller holds the device locked (e.g. `lockDevice`) and wakes the mail queue after commit.
 * Moving a device to the node it is on changes nothing.
 */
export async function moveDevice(
  tx: Kysely<ProvisioningDatabase>,
  device: Device,
  targetNodeId: string,
  options: { actorId?: Actor; now?: Date } = {},
): Promise<{ device: Device; node: Node; moved: boolean }> {
  if (device.node_id === targetNodeId) return { device, node: await nodeOf(tx, targetNodeId), moved: false };
  const { node, address } = await leaseAddress(tx, targetNodeId);
  const now = options.now ?? new Date();
  await retireKeys(tx, { deviceIds: [device.id] });
  // Back on a node it left not long ago: the peer left there is the device again, at its new address.
  await tx.deleteFrom('moved_peers').where('device_id', '=', device.id).where('node_id', '=', targetNodeId).execute();
  if (device.is_active && device.public_key && device.node_id && device.ipv4 && device.ipv6) {
    await tx
      .insertInto('moved_peers')
      .values({
        node_id: device.node_id,
        public_key: device.public_key,
        device_id: device.id,
        ipv4: device.ipv4,
        ipv6: device.ipv6,
        expires_at: new Date(now.getTime() + movedPeerGraceDays * 86_400_000),
      })
      .onConflict((oc) =>
        oc.columns(['node_id', 'public_key']).doUpdateSet({
          ipv4: sql.ref('excluded.ipv4'),
          ipv6: sql.ref('excluded.ipv6'),
          expires_at: sql.ref('excluded.expires_at'),
        }),
      )
      .execute();
  }
  const after = await updateDevice(tx, device.id, {
    node_id: node.id,
    ipv4: address.ipv4,
    ipv6: address.ipv6,
    config_changed_at: device.public_key ? now : null,
    held_since: null,
  });
  await recordMoved(tx, device, after, options.actorId ?? null);
  if (after.is_active) await queueMovedMail(tx, after);
  return { device: after, node, moved: true };
}
