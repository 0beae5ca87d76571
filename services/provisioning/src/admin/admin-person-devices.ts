import type { Kysely } from 'kysely';
import type { AdminPersonDevices } from '@qw/contracts';
import type { RpcClient } from '@qw/platform/bus';
import type { ProvisioningDatabase } from '../database.ts';
import { exportDevices } from '../devices/account-devices.ts';

/**
 * The console's page of one person, provisioning's part (issue #26): every device of theirs with
 * its status, server and last handshake, newest first. Read as for their own export, then cut to
 * what the page shows: no key, no tunnel address, no network it connected from.
 */
export async function personDevices(
  db: Kysely<ProvisioningDatabase>,
  rpc: RpcClient,
  userId: string,
): Promise<AdminPersonDevices> {
  const { devices } = await exportDevices(db, rpc, userId);
  return {
    devices: devices
      .map((device) => ({
        id: device.id,
        name: device.name,
        platform: device.platform,
        organization_id: device.organization_id,
        status: device.status,
        server: device.server,
        last_handshake_at: device.last_handshake_at,
        created_at: device.created_at,
      }))
      .reverse(),
  };
}
