import { sql, type Kysely } from 'kysely';
import { latestTelemetryRpc, type ProvisioningAccountData } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import { deviceAddressCidrs } from '@qw/wireguard';
import type { ProvisioningDatabase } from '../database.ts';
import { recordRemoved } from '../device-events/device-events.ts';
import { nodesById } from '../nodes/nodes.repository.ts';
import { privacyView } from './device-privacy-rules.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * Every device of the person, for their export: what they named it, where it connects, its public
 * key and addresses, its content blocking and split tunnel. The sealed private key is never read here.
 */
export async function exportDevices(db: Db, rpc: RpcClient, userId: string): Promise<ProvisioningAccountData> {
  const devices = await db
    .selectFrom('devices')
    .select([
      'id',
      'name',
      'platform',
      'org_id',
      'created_at',
      'is_active',
      'suspended_reason',
      'public_key',
      'ipv4',
      'ipv6',
      'node_id',
      'key_created_at',
      'blocking_mask',
      'split_tunnel',
      'custom_routes',
    ])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();
  const latest =
    devices.length === 0
      ? []
      : (await rpc.request(latestTelemetryRpc, { device_ids: devices.map((d) => d.id) })).devices;
  const telemetryOf = new Map(latest.map((row) => [row.device_id, row]));
  const nodes = await nodesById(
    db,
    devices.map((device) => device.node_id),
  );
  return {
    devices: devices.map((device) => ({
      id: device.id,
      name: device.name,
      platform: device.platform,
      organization_id: device.org_id,
      created_at: new Date(device.created_at).toISOString(),
      status: device.is_active ? 'active' : `suspended (${device.suspended_reason ?? 'plan'})`,
      public_key: device.public_key,
      addresses: device.ipv4 && device.ipv6 ? deviceAddressCidrs(device.ipv4, device.ipv6) : [],
      server: device.node_id ? (nodes.get(device.node_id)?.name ?? null) : null,
      key_created_at: device.key_created_at ? new Date(device.key_created_at).toISOString() : null,
      ...privacyView(device),
      last_handshake_at: telemetryOf.get(device.id)?.latest_handshake ?? null,
      connected_from: telemetryOf.get(device.id)?.endpoint ?? null,
      received_bytes_24h: telemetryOf.get(device.id)?.tx_bytes_24h ?? 0,
      sent_bytes_24h: telemetryOf.get(device.id)?.rx_bytes_24h ?? 0,
    })),
  };
}

/**
 * A deleted account's part in provisioning: every device of theirs goes (personal and in
 * organizations), so each node drops its peer and every key, current or in its grace period,
 * stops working; provisioning's copy of their memberships ends, whether support had the account
 * suspended is forgotten, and the operators' actions keep no device name of theirs.
 */
export async function forgetAccountDevices(tx: Db, userId: string, eventId: string): Promise<void> {
  const removed = await tx.deleteFrom('devices').where('user_id', '=', userId).returningAll().execute();
  await recordRemoved(tx, removed, userId);
  // Kept as not a member (with this event's id), so a late older event cannot bring them back.
  await tx
    .updateTable('org_members')
    .set({ is_member: false, last_event_id: eventId })
    .where('user_id', '=', userId)
    .execute();
  await tx.deleteFrom('account_suspensions').where('user_id', '=', userId).execute();
  if (removed.length > 0)
    await tx
      .updateTable('operator_actions')
      .set({ details: sql<string>`details - 'name'` })
      .where('target_kind', '=', 'device')
      .where(
        'target_id',
        'in',
        removed.map((device) => device.id),
      )
      .execute();
}
