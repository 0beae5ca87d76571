import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import { handshakesChanged, handshakesObserved } from '@qw/contracts';
import { addToOutbox, batchConsumer } from '@qw/platform';
import type { TelemetryDatabase } from '../database.ts';

type Db = Kysely<TelemetryDatabase>;
type HandshakeChanges = Static<typeof handshakesChanged.schema>;

/**
 * Peers a node saw connect just now (`node.<name>.handshakes.changed`, sent within about a second
 * of the handshake): the connected-status path that does not wait for the next 10 s sample.
 * `node` is the name in the subject, which only that node's credentials may publish on; a peer
 * counts only when its key is placed on that very node. Each handshake newer than the one
 * telemetry holds is told to provisioning at once (`telemetry.handshakes.observed`, the event the
 * samples use too), whose device rows the device lists read. The device's latest row keeps the
 * newer handshake, so the next sample does not announce it again; a device not sampled yet gets
 * its row from that sample. Returns how many devices were told.
 */
export async function recordHandshakeChanges(
  tx: Db,
  node: string | undefined,
  data: HandshakeChanges,
): Promise<number> {
  if (!node) return 0;
  const nodeRow = await tx.selectFrom('nodes').select('id').where('name', '=', node).executeTakeFirst();
  if (!nodeRow) return 0;
  const keys = await tx
    .selectFrom('device_keys')
    .select(['public_key', 'device_id'])
    .where('node_id', '=', nodeRow.id)
    .where(
      'public_key',
      'in',
      data.peers.map((peer) => peer.publicKey),
    )
    .execute();
  if (keys.length === 0) return 0;
  const deviceOf = new Map(keys.map((key) => [key.public_key, key.device_id]));
  const stored = await tx
    .selectFrom('device_latest_telemetry')
    .select(['device_id', 'latest_handshake'])
    .where(
      'device_id',
      'in',
      keys.map((key) => key.device_id),
    )
    .execute();
  const before = new Map(stored.map((row) => [row.device_id, row.latest_handshake]));
  const newer: Array<{ deviceId: string; latestHandshake: string }> = [];
  for (const peer of data.peers) {
    const deviceId = deviceOf.get(peer.publicKey);
    if (!deviceId) continue;
    const at = new Date(peer.latestHandshake * 1000);
    const known = before.get(deviceId);
    if (known && new Date(known).getTime() >= at.getTime()) continue;
    newer.push({ deviceId, latestHandshake: at.toISOString() });
  }
  if (newer.length === 0) return 0;
  await sql`update device_latest_telemetry as d set latest_handshake = c.at
            from unnest(${newer.map((d) => d.deviceId)}::uuid[], ${newer.map((d) => d.latestHandshake)}::timestamptz[])
              as c(device_id, at)
            where d.device_id = c.device_id and (d.latest_handshake is null or d.latest_handshake < c.at)`.execute(tx);
  await addToOutbox(tx, handshakesObserved, { nodeId: nodeRow.id, devices: newer });
  return newer.length;
}

/** The nodes' handshake changes, each batch in one transaction. */
export const handshakeChangesConsumer = batchConsumer(
  'telemetry.handshakes-changed',
  handshakesChanged,
  async (tx: Db, events) => {
    for (const event of events) await recordHandshakeChanges(tx, event.params.node, event.data);
  },
);
