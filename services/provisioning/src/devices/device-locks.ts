import { AppError, deviceRateLimits } from '@qw/contracts';
import { takeRateLimited } from '@qw/platform/limits';
import { sql, type Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/**
 * Checks that read, then write, under a transaction-scoped advisory lock, so two requests at once
 * are checked one after the other instead of both reading the state before either wrote.
 */

/** A person's personal devices: the fair-use ceiling is counted under it (see DevicesService.withinFairUse). */
export async function lockPersonalDevices(tx: Db, userId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`personal-devices:${userId}`}, 0))`.execute(tx);
}

export const publicKeyInUse = () =>
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
  await sql`select pg_advisory_xact_lock(hashtextextended(${`public-key:${publicKey}`}, 0))`.execute(tx);
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

/** The pace of additions, per person who adds (personal and organization devices alike). */
export async function withinPace(tx: Db, userId: string): Promise<void> {
  await takeRateLimited(
    tx,
    [{ key: `devices:create:${userId}`, limit: deviceRateLimits.creations }],
    (wait) => `You added many devices in a short time. Try again in ${wait}.`,
  );
}
