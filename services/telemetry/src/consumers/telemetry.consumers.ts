import {
  deviceActivated,
  deviceCreated,
  deviceMoved,
  deviceRemoved,
  deviceSuspended,
  hostSampled,
  keyRotated,
  keysRevoked,
  nodeRegistered,
  peersSampled,
} from '@qw/contracts';
import { batchConsumer, consumer } from '@qw/platform';
import type { Kysely } from 'kysely';
import type { TelemetryDatabase } from '../database.ts';
import { forgetDevice, mapKey, recordHostSample, rememberNode } from '../samples/samples.service.ts';
import { recordPeerSamples } from '../samples/peer-samples.ts';
import { forgetActivity, recordActivity } from '../devices/device-activity.repository.ts';
import { handshakeChangesConsumer } from '../samples/handshake-changes.ts';

type Db = Kysely<TelemetryDatabase>;

/**
 * Peer-sample messages handled in one transaction at most: 100,000 peer samples from nodes of 1,000
 * peers, written with a handful of statements; bench/telemetry.bench.ts measures it.
 */
const peerSampleBatch = 100;

/** One durable consumer per subject (NATS 2.9 takes one filter subject per consumer). */
export const telemetryConsumers = [
  consumer('telemetry.node-registered', nodeRegistered, (tx: Db, e) => rememberNode(tx, e.data)),
  consumer('telemetry.device-created', deviceCreated, async (tx: Db, e) => {
    // A creation older than the device's removal (sent late) brings nothing back.
    if (!(await mapKey(tx, e.data, e.outboxSequence))) return;
    await recordActivity(tx, { deviceId: e.data.deviceId, isActive: e.data.isActive, at: e.occurredAt });
  }),
  // Whether a device is on: a suspended one is not connected on the Telemetry page either.
  consumer('telemetry.device-suspended', deviceSuspended, (tx: Db, e) =>
    recordActivity(tx, { deviceId: e.data.deviceId, isActive: false, at: e.occurredAt }),
  ),
  consumer('telemetry.device-activated', deviceActivated, (tx: Db, e) =>
    recordActivity(tx, { deviceId: e.data.deviceId, isActive: true, at: e.occurredAt }),
  ),
  consumer('telemetry.key-rotated', keyRotated, async (tx: Db, e) => void (await mapKey(tx, e.data, e.outboxSequence))),
  // Same key, another node: the new node's samples count for the device from now on.
  consumer(
    'telemetry.device-moved',
    deviceMoved,
    async (tx: Db, e) => void (await mapKey(tx, e.data, e.outboxSequence)),
  ),
  consumer('telemetry.device-removed', deviceRemoved, async (tx: Db, e) => {
    await forgetDevice(tx, e.data.deviceId, e.outboxSequence);
    await forgetActivity(tx, e.data.deviceId);
  }),
  consumer(
    'telemetry.keys-revoked',
    keysRevoked,
    async (tx: Db, e) => void (await forgetDevice(tx, e.data.deviceId, e.outboxSequence)),
  ),
  // The samples that arrived together in one transaction with a fixed number of statements; at
  // most 100 messages (100,000 peer samples from nodes of 1,000 peers) at a time.
  batchConsumer(
    'telemetry.peers-sampled',
    peersSampled,
    async (tx: Db, events) => {
      await recordPeerSamples(
        tx,
        events.map((e) => ({ node: e.params.node, sample: e.data })),
      );
    },
    // Two transactions at once, each with its own nodes (a node's samples stay in one, in order):
    // the replica prepares one part while Postgres writes the other.
    { batchSize: peerSampleBatch, split: { count: 2, key: (event) => event.params.node ?? '' } },
  ),
  consumer('telemetry.host-sampled', hostSampled, (tx: Db, e) => recordHostSample(tx, e.params.node, e.data)),
  // Peers that have just connected, within a second: "connected" without waiting for a sample.
  handshakeChangesConsumer,
];
