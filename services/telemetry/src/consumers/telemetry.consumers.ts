import { deviceCreated, deviceRemoved, hostSampled, keyRotated, keysRevoked, peersSampled } from '@qw/contracts';
import { consumer } from '@qw/platform';
import { forgetDevice, mapKey, recordHostSample, recordPeerSamples } from '../samples/samples.service.ts';

/** One durable consumer per subject (NATS 2.9 takes one filter subject per consumer). */
export const telemetryConsumers = [
  consumer('telemetry.device-created', deviceCreated, (tx, e) => mapKey(tx, e.data)),
  consumer('telemetry.key-rotated', keyRotated, (tx, e) => mapKey(tx, e.data)),
  consumer('telemetry.device-removed', deviceRemoved, (tx, e) => forgetDevice(tx, e.data.deviceId)),
  consumer('telemetry.keys-revoked', keysRevoked, (tx, e) => forgetDevice(tx, e.data.deviceId)),
  consumer('telemetry.peers-sampled', peersSampled, (tx, e) => recordPeerSamples(tx, e)),
  consumer('telemetry.host-sampled', hostSampled, (tx, e) => recordHostSample(tx, e.data)),
];
