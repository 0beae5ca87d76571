import { deviceRateLimits } from '@qw/contracts';
import { takeRateLimited } from '@qw/platform/limits';
import type { Kysely } from 'kysely';
import type { ProvisioningDatabase } from '../database.ts';
import { lockName } from '@qw/platform/db';

type Db = Kysely<ProvisioningDatabase>;

/** A person's personal devices: the fair-use ceiling is counted under it (see DevicesService.withinFairUse). */
export async function lockPersonalDevices(tx: Db, userId: string): Promise<void> {
  await lockName(tx, `personal-devices:${userId}`);
}

/** The pace of additions, per person who adds (personal and organization devices alike). */
export async function withinPace(tx: Db, userId: string): Promise<void> {
  await takeRateLimited(
    tx,
    [{ key: `devices:create:${userId}`, limit: deviceRateLimits.creations }],
    (wait) => `You added many devices in a short time. Try again in ${wait}.`,
  );
}
