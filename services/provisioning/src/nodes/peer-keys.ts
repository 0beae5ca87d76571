import { AppError } from '@qw/contracts';
import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';
import { lockName } from '@qw/platform/db';

type Db = Kysely<ProvisioningDatabase>;

const publicKeyInUse = () =>
  new AppError(
    'public_key_in_use',
    'This public key is already used by another device. Make a new key pair for each device.',
    { field: 'public_key' },
  );

/**
 * A WireGuard public key names one peer: refused when another device has it, or had it and it is
 * still on its node for a scheduled rotation's grace period. Locked on the key, so two requests
 * bringing the same one cannot both pass.
 */
export async function requireUnusedPublicKey(tx: Db, publicKey: string, deviceId: string): Promise<void> {
  await lockName(tx, `public-key:${publicKey}`);
  const device = await tx
    .selectFrom('devices')
    .select('id')
    .where('public_key', '=', publicKey)
    .where('id', '!=', deviceId)
    .executeTakeFirst();
  const retiring = await tx
    .selectFrom('retiring_keys')
    .select('device_id')
    .where('public_key', '=', publicKey)
    .where('device_id', '!=', deviceId)
    .executeTakeFirst();
  if (device || retiring) throw publicKeyInUse();
}
