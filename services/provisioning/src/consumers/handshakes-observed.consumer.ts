import { sql, type Kysely } from 'kysely';
import { handshakesObserved } from '@qw/contracts';
import { batchConsumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';

/**
 * Telemetry saw newer handshakes: each device keeps its latest one, so the console's "connected"
 * filter is a query on provisioning's own table. A handshake older than the one stored (a late
 * or repeated event) changes nothing; a device that is gone is skipped.
 */
export const handshakesObservedConsumer = batchConsumer(
  'provisioning.handshakes-observed',
  handshakesObserved,
  async (tx: Kysely<ProvisioningDatabase>, events) => {
    const latest = new Map<string, string>();
    for (const event of events)
      for (const { deviceId, latestHandshake } of event.data.devices) {
        const id = deviceId.toLowerCase();
        const known = latest.get(id);
        if (!known || Date.parse(latestHandshake) > Date.parse(known)) latest.set(id, latestHandshake);
      }
    await sql`
      update devices set latest_handshake = seen.at
        from unnest(${[...latest.keys()]}::uuid[], ${[...latest.values()]}::timestamptz[]) as seen(id, at)
       where devices.id = seen.id and (devices.latest_handshake is null or devices.latest_handshake < seen.at)`.execute(
      tx,
    );
  },
);
