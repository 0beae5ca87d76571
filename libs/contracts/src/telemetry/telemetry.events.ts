import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

/**
 * The handshakes a node's sample showed that are newer than the last ones known: telemetry's
 * reading of the samples, so provisioning can keep each device's latest handshake beside the
 * device and filter "connected now" in its own queries. Only device ids and times travel: no key,
 * address or owner.
 */
export const handshakesObserved = defineEvent(
  'telemetry.handshakes.observed',
  1,
  Type.Object({
    nodeId: Type.String({ format: 'uuid' }),
    devices: Type.Array(
      Type.Object({
        deviceId: Type.String({ format: 'uuid' }),
        latestHandshake: Type.String({ format: 'date-time' }),
      }),
      { minItems: 1 },
    ),
  }),
);

export const telemetryEvents = [handshakesObserved];
