import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { ProvisioningDatabase } from '../database.ts';
import { endMovedPeers } from '../device-events/device-events.ts';

/** Peers moves left behind whose grace period is over leave their nodes (a periodic task; the test clock runs it too). */
export async function endExpiredMovedPeers(db: Kysely<ProvisioningDatabase>, clock: Clock): Promise<number> {
  const now = await clock.now();
  return db.transaction().execute((tx) => endMovedPeers(tx, { endedBy: now }));
}
