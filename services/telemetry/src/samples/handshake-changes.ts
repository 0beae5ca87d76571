import { sql, type Kysely } from 'kysely';
import type { Static } from 'typebox';
import { handshakesChanged, handshakesObserved } from '@qw/contracts';
import { addToOutbox, batchConsumer } from '@qw/platform';
import type { TelemetryDatabase } from '../database.ts';
import { isNewHandshake } from './peer-samples.ts';

type Db = Kysely<TelemetryDatabase>;
type HandshakeChanges = Static<typeof handshakesChanged.schema>;

/** How long a handshake for a key telemetry does not know on that node waits for the key. */
export const earlyHandshakeSeconds = 120;

/**
 * Peers a node saw connect just now (`node.<name>.handshakes.changed`, sent within about a second
 * of the handshake): the connected-status path that does not wait for the next 10 s sample.
 * `node` is the name in the subject, which only that node's credentials may publish on; a peer
 * counts only when its key is placed on that very node. Each handshake newer than the one
 * telemetry holds is told to provisioning at once (`telemetry.handshakes.observed`, the event the
 * samples use too), whose device rows the device lists read. The device's latest row keeps the
 * newer handshake, so the next sample does not announce it again; a device not sampled yet gets
 * its row from that sample.
 *
 * A key telemetry does not know on that node yet may be a device whose event it has not read: a
 * new device connects as soon as its peer is on the node, and the device events come through
 * another consumer, which can be behind. Such a handshake waits in `early_handshakes` (two
 * minutes at most) and is told when the key arrives (`claimEarlyHandshake`), instead of being
 * dropped, which left a new device "not connected" until the node's next sample. Returns how
 * many devices were told.
 */
export async function recordHandshakeChanges(
  tx: Db,
  node: string | undefined,
  data: HandshakeChanges,
): Promise<number> {
  if (!node) return 0;
  const nodeRow = await tx.selectFrom('nodes').select('id').where('name', '=', node).executeTakeFirst();
  if (!nodeRow) return 0;
  await lockKeys(
    tx,
    data.peers.map((peer) => peer.publicKey),
  );
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
  const deviceOf = new Map(keys.map((key) => [key.public_key, key.device_id]));
  const early = data.peers.filter((peer) => !deviceOf.has(peer.publicKey));
  if (early.length > 0) await keepEarly(tx, nodeRow.id, early);
  return tellNewerHandshakes(
    tx,
    nodeRow.id,
    data.peers.flatMap((peer) => {
      const deviceId = deviceOf.get(peer.publicKey);
      return deviceId ? [{ deviceId, at: new Date(peer.latestHandshake * 1000) }] : [];
    }),
  );
}

/**
 * Takes each key's lock until commit, in one order: a handshake for a key and the device event that
 * maps it (`mapKey`) take turns. Without it, the handshake's transaction could find the key
 * unknown while the event's was not yet committed, and the event's claim could run before the
 * handshake's early row was committed: neither would see the other, and the handshake would wait
 * for the node's next sample.
 */
export async function lockKeys(tx: Db, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const sorted = [...new Set(keys)].sort();
  await sql`select count(pg_advisory_xact_lock(hashtext('telemetry.device-key'), hashtext(k)))
            from unnest(${sorted}::text[]) as k`.execute(tx);
}

/**
 * Forgets the early handshakes whose key has not come within the wait (a task). Until then a stale
 * one does no harm: `claimEarlyHandshake` tells only those still within the wait.
 */
export async function pruneEarlyHandshakes(db: Db): Promise<void> {
  await sql`delete from early_handshakes
            where received_at < now() - make_interval(secs => ${earlyHandshakeSeconds})`.execute(db);
}

/** Keeps handshakes of keys not known on the node yet, the newest per key. */
async function keepEarly(tx: Db, nodeId: string, peers: HandshakeChanges['peers']): Promise<void> {
  await sql`insert into early_handshakes (node_id, public_key, latest_handshake)
            select ${nodeId}::uuid, k, to_timestamp(h)
            from unnest(${peers.map((p) => p.publicKey)}::text[], ${peers.map((p) => p.latestHandshake)}::bigint[]) as e(k, h)
            on conflict (node_id, public_key) do update
              set latest_handshake = greatest(early_handshakes.latest_handshake, excluded.latest_handshake),
                  received_at = now()`.execute(tx);
}

/**
 * The key of `deviceId` is now known on `nodeId` (a new device, a new key, a move): a handshake the
 * node saw for it in the last two minutes, before telemetry knew the key, is told now.
 */
export async function claimEarlyHandshake(
  tx: Db,
  key: { publicKey: string; deviceId: string; nodeId: string },
): Promise<number> {
  const early = await sql<{ latest_handshake: Date; fresh: boolean }>`
    delete from early_handshakes
    where node_id = ${key.nodeId} and public_key = ${key.publicKey}
    returning latest_handshake, received_at > now() - make_interval(secs => ${earlyHandshakeSeconds}) as fresh`.execute(
    tx,
  );
  const row = early.rows[0];
  if (!row?.fresh) return 0;
  return tellNewerHandshakes(tx, key.nodeId, [{ deviceId: key.deviceId, at: new Date(row.latest_handshake) }]);
}

/**
 * Of the devices' handshakes, those newer than the one telemetry holds: kept in their latest rows
 * and told to provisioning (`telemetry.handshakes.observed`). Returns how many.
 */
async function tellNewerHandshakes(
  tx: Db,
  nodeId: string,
  handshakes: ReadonlyArray<{ deviceId: string; at: Date }>,
): Promise<number> {
  if (handshakes.length === 0) return 0;
  const stored = await tx
    .selectFrom('device_latest_telemetry')
    .select(['device_id', 'latest_handshake', 'node_id'])
    .where(
      'device_id',
      'in',
      handshakes.map((h) => h.deviceId),
    )
    .execute();
  const before = new Map(
    stored.map((row) => [
      row.device_id,
      {
        latestHandshake: row.latest_handshake ? new Date(row.latest_handshake).getTime() : null,
        nodeId: row.node_id,
      },
    ]),
  );
  const newer: Array<{ deviceId: string; latestHandshake: string }> = [];
  for (const { deviceId, at } of handshakes) {
    if (!isNewHandshake(at.getTime(), before.get(deviceId), nodeId)) continue;
    newer.push({ deviceId, latestHandshake: at.toISOString() });
  }
  if (newer.length === 0) return 0;
  await sql`update device_latest_telemetry as d set latest_handshake = c.at
            from unnest(${newer.map((d) => d.deviceId)}::uuid[], ${newer.map((d) => d.latestHandshake)}::timestamptz[])
              as c(device_id, at)
            where d.device_id = c.device_id and (d.latest_handshake is null or d.latest_handshake < c.at)`.execute(tx);
  await addToOutbox(tx, handshakesObserved, { nodeId, devices: newer });
  return newer.length;
}

/** The nodes' handshake changes, each batch in one transaction. */
export const handshakeChangesConsumer = batchConsumer(
  'telemetry.handshakes-changed',
  handshakesChanged,
  async (tx: Db, events) => {
    // Every key of the batch at once, in one order: two batches never wait on each other in a circle.
    await lockKeys(
      tx,
      events.flatMap((event) => event.data.peers.map((peer) => peer.publicKey)),
    );
    for (const event of events) await recordHandshakeChanges(tx, event.params.node, event.data);
  },
);
