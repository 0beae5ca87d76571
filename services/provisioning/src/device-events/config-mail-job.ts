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
