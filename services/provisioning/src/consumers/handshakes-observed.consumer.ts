import type { Kysely } from 'kysely';
import { handshakesObserved } from '@qw/contracts';
import { batchConsumer } from '@qw/platform';
import type { ProvisioningDatabase } from '../database.ts';
import { endMovedPeers } from '../device-events/device-events.ts';
import { latestHandshakes } from '../nodes/node-rules.ts';
import { recordLatestHandshakes } from '../nodes/nodes.repository.ts';

/**
 * Telemetry saw newer handshakes: each device keeps its latest one, so the console's "connected"
 * filter is a query on provisioning's own table. A handshake older than the one stored (a late
 * or repeated event) changes nothing; a device that is gone is skipped. A moved device seen
 * through the node it is on now has its new peer live: the peers it left on other nodes go.
 */
export const handshakesObservedConsumer = batchConsumer(
  'provisioning.handshakes-observed',
  handshakesObserved,
  async (tx: Kysely<ProvisioningDatabase>, events) => {
    await recordLatestHandshakes(tx, latestHandshakes(events.flatMap((event) => event.data.devices)));
    for (const event of events)
      await endMovedPeers(tx, { seenOn: event.data.nodeId, deviceIds: event.data.devices.map((d) => d.deviceId) });
  },
);
