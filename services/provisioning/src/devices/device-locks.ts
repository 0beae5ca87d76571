import { deviceRateLimits } from '@qw/contracts';
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

/** The pace of additions, per person who adds (personal and organization devices alike). */
export async function withinPace(tx: Db, userId: string): Promise<void> {
  await takeRateLimited(
    tx,
    [{ key: `devices:create:${userId}`, limit: deviceRateLimits.creations }],
    (wait) => `You added many devices in a short time. Try again in ${wait}.`,
  );
}
