import {
  deviceCreated,
  deviceRemoved,
  hostSampled,
  keyRotated,
  keysRevoked,
  nodeRegistered,
  peersSampled,
} from '@qw/contracts';
import { consumer } from '@qw/platform';
import type { Kysely } from 'kysely';
import type { TelemetryDatabase } from '../database.ts';
import { forgetDevice, mapKey, recordHostSample, recordPeerSamples, rememberNode } from '../samples/samples.service.ts';

type Db = Kysely<TelemetryDatabase>;

/** One durable consumer per subject (NATS 2.9 takes one filter subject per consumer). */
export const telemetryConsumers = [
  consumer('telemetry.node-registered', nodeRegistered, (tx: Db, e) => rememberNode(tx, e.data)),
  consumer('telemetry.device-created', deviceCreated, (tx: Db, e) => mapKey(tx, e.data)),
  consumer('telemetry.key-rotated', keyRotated, (tx: Db, e) => mapKey(tx, e.data)),
  consumer('telemetry.device-removed', deviceRemoved, (tx: Db, e) => forgetDevice(tx, e.data.deviceId)),
  consumer('telemetry.keys-revoked', keysRevoked, (tx: Db, e) => forgetDevice(tx, e.data.deviceId)),
  consumer('telemetry.peers-sampled', peersSampled, async (tx: Db, e) => {
    await recordPeerSamples(tx, e.params.node, e.data);
  }),
  consumer('telemetry.host-sampled', hostSampled, (tx: Db, e) => recordHostSample(tx, e.params.node, e.data)),
];
