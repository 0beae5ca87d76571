import type { Kysely } from 'kysely';
import { keyRotationGraceHours } from '@qw/contracts';
import { queueMail } from '@qw/platform/mailer';
import type { Device, ProvisioningDatabase } from '../database.ts';

/** The queued mail that carries a device's configuration (the .conf attached, the QR inline). */
export const configMailKind = 'device-config';

/**
 * Queues the configuration mail in the same transaction as the change that made it: the mail
 * queue sends it (retrying) to the device's person once their address is confirmed. Answers
 * whether a mail is on its way: a key made in the browser cannot be mailed (the server never
 * had it), nor can anything go to an address that is not confirmed.
 */
export async function queueConfigMail(
  tx: Kysely<ProvisioningDatabase>,
  device: Device,
  rotated: boolean,
  scheduled = false,
): Promise<boolean> {
  if (!device.private_key_sealed || !device.key_created_at) return false;
  await queueMail(tx, configMailKind, {
    deviceId: device.id,
    keyCreatedAt: new Date(device.key_created_at).toISOString(),
    rotated,
    ...(scheduled ? { graceHours: keyRotationGraceHours } : {}),
  });
  return true;
}

/** The queued mail that tells a device's person it moved to another server: download its configuration again. */
export const movedMailKind = 'device-moved';

/**
 * Queues the "download again" mail of a move in the same transaction as the move. It names the
 * node the device moved to: at sending time a device that moved on since is mailed by its newer
 * move only. A device without a key has no configuration to download again.
 */
export async function queueMovedMail(tx: Kysely<ProvisioningDatabase>, device: Device): Promise<boolean> {
  if (!device.public_key || !device.node_id) return false;
  await queueMail(tx, movedMailKind, { deviceId: device.id, nodeId: device.node_id });
  return true;
}
