import type { Insertable, Kysely } from 'kysely';
import type { Device, ProvisioningDatabase, RetiringKeysTable } from '../database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Devices whose scheduled rotation is due, locked; rows another pass holds are skipped. */
/**
 * Devices whose scheduled rotation is due, locked. By default rows another transaction holds are
 * skipped (another replica's pass has them, or a handshake being recorded does: the next pass
 * takes those); `waitForLocked` waits for them instead, and Postgres then reads each again, so a
 * device another pass just rotated is no longer due.
 */
export function lockDueRotations(
  tx: Db,
  now: Date,
  limit: number,
  options: { waitForLocked?: boolean } = {},
): Promise<Device[]> {
  const due = tx
    .selectFrom('devices')
    .selectAll()
    .where('next_key_rotation_at', '<=', now)
    .orderBy('next_key_rotation_at')
    .limit(limit)
    .forUpdate();
  return (options.waitForLocked ? due : due.skipLocked()).execute();
}

/** The previous key stays on its node, at its own address, until `expiresAt`. */
export async function keepRetiringKey(tx: Db, key: Insertable<RetiringKeysTable>): Promise<void> {
  await tx.insertInto('retiring_keys').values(key).execute();
}
