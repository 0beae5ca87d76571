import type { Kysely } from 'kysely';
import { isDeviceConnected, isNodeReachable, type DeviceView, type DeviceWithStatus } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import { deviceAddressCidrs } from '@qw/wireguard';
import type { Device, Node, ProvisioningDatabase } from '../database.ts';
import { nodesById } from '../nodes/nodes.repository.ts';
import { privacyView } from './device-privacy-rules.ts';
import { retiringUntil, type DeviceState, type ListedDevice, type ViewedDevice } from './devices.repository.ts';
import { deviceTrafficFor } from './device-traffic.ts';

const iso = (at: Date | string | null | undefined) =>
  at ? (at instanceof Date ? at : new Date(at)).toISOString() : null;

/** A device as every answer shows it. */
export function view(
  device: ViewedDevice,
  node: Pick<Node, 'id' | 'name' | 'region' | 'city' | 'last_seen_at'> | undefined,
  previousKeyExpiresAt: Date | null = null,
): DeviceView {
  return {
    id: device.id,
    name: device.name,
    platform: device.platform,
    is_active: device.is_active,
    user_id: device.user_id,
    org_id: device.org_id,
    created_at: new Date(device.created_at).toISOString(),
    public_key: device.public_key,
    addresses: device.ipv4 && device.ipv6 ? deviceAddressCidrs(device.ipv4, device.ipv6) : [],
    node: node
      ? {
          id: node.id,
          name: node.name,
          region: node.region,
          city: node.city,
          reachable: isNodeReachable(node.last_seen_at),
        }
      : null,
    region_choice: device.region_choice,
    country: device.country,
    config_changed_at: iso(device.config_changed_at),
    held_since: iso(device.held_since),
    key_created_at: iso(device.key_created_at),
    client_keys: device.client_keys,
    key_rotation_days:
      device.key_rotation_days === 30 || device.key_rotation_days === 90 ? device.key_rotation_days : null,
    next_key_rotation_at: iso(device.next_key_rotation_at),
    previous_key_expires_at: iso(previousKeyExpiresAt),
    suspended_by: device.suspended_by ?? null,
    ...privacyView(device),
  };
}

/** One device's view, with its node and its previous key's end (read after the change committed). */
export async function viewOf(db: Kysely<ProvisioningDatabase>, device: Device): Promise<DeviceView> {
  const nodes = await nodesById(db, [device.node_id]);
  const retiring = await retiringUntil(db, [device.id]);
  return view(device, device.node_id ? nodes.get(device.node_id) : undefined, retiring.get(device.id) ?? null);
}

/** Whether the device is connected now, from its own row (`isDeviceConnected`, the rule of every view). */
export function connectedNow(device: DeviceState, now: Date): boolean {
  return isDeviceConnected(
    { isActive: device.is_active, hasKey: device.public_key !== null, latestHandshake: device.latest_handshake },
    now,
  );
}

/**
 * Each device with its traffic from telemetry (at most a second old, `DeviceTrafficCache`);
 * connected (and its handshake) from the device's own row, the read model the operator's lists
 * use too, by `isDeviceConnected`. Every list of devices (personal and organization) shows them so.
 */
export async function withStatus(rpc: RpcClient, devices: ListedDevice[]): Promise<DeviceWithStatus[]> {
  const statusOf = await deviceTrafficFor(rpc).of(devices.map((d) => d.id));
  const now = new Date();
  return devices.map((device) => {
    const status = statusOf.get(device.id);
    const node =
      device.node_id && device.node_name !== null
        ? {
            id: device.node_id,
            name: device.node_name,
            region: device.node_region!,
            city: device.node_city,
            last_seen_at: device.node_last_seen_at,
          }
        : undefined;
    // The status is added to the view's own new object: a spread into another literal copied its
    // twenty-odd fields one by one, about 5% of a device list's CPU.
    return Object.assign(view(device, node, device.retiring_until ? new Date(device.retiring_until) : null), {
      is_connected: connectedNow(device, now),
      latest_handshake: iso(device.latest_handshake),
      rx_bytes: status?.rx_bytes ?? 0,
      tx_bytes: status?.tx_bytes ?? 0,
      received_bytes_24h: status?.tx_bytes_24h ?? 0,
      sent_bytes_24h: status?.rx_bytes_24h ?? 0,
    });
  });
}
