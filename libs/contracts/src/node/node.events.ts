import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

/**
 * What a node agent sees on its interface every 10 s, on `node.<its name>.peers.sampled` (the
 * only subject its credentials may publish samples on, so the name is the sender). Endpoints are
 * masked by the agent before they leave the node (IPv4 /24, IPv6 /48): the full address is never
 * sent or stored.
 */
export const peersSampled = defineEvent(
  'node.{node}.peers.sampled',
  1,
  Type.Object({
    sampledAt: Type.String({ format: 'date-time' }),
    peers: Type.Array(
      Type.Object({
        publicKey: Type.String({ minLength: 44, maxLength: 44 }),
        latestHandshake: Type.Integer({ minimum: 0 }),
        rxBytes: Type.Integer({ minimum: 0 }),
        txBytes: Type.Integer({ minimum: 0 }),
        maskedEndpoint: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
        /**
         * Round trip of one ICMP echo from the node to the device's tunnel address at sampling
         * time, in ms; null (or absent, from older agents) when not measured or not answered.
         * WireGuard counts no packets per peer, so the sample carries no packet counts at all.
         */
        latencyMs: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
      }),
      { maxItems: 100_000 },
    ),
  }),
);

/** Host metrics of a node every 15 s, on `node.<its name>.host.sampled`. */
export const hostSampled = defineEvent(
  'node.{node}.host.sampled',
  1,
  Type.Object({
    sampledAt: Type.String({ format: 'date-time' }),
    cpu: Type.Number({ minimum: 0 }),
    memUsed: Type.Integer({ minimum: 0 }),
    memTotal: Type.Integer({ minimum: 0 }),
    diskUsed: Type.Integer({ minimum: 0 }),
    diskTotal: Type.Integer({ minimum: 0 }),
    load1: Type.Number({ minimum: 0 }),
    load5: Type.Number({ minimum: 0 }),
    load15: Type.Number({ minimum: 0 }),
    /** Bytes through the WireGuard interface since it came up (counters; agents before 0.5 leave them out). */
    netRxBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    netTxBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Peers on the interface at its latest reading. */
    peers: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
);

/**
 * Peers that have just connected, on `node.<its name>.handshakes.changed`: the agent reads the
 * interface's latest handshakes every second (`HANDSHAKE_WATCH_SECONDS`) and sends only the peers
 * whose handshake is new and whose previous one was none or outside the connected window, so a
 * device's first handshake reaches the device lists within about a second instead of at the next
 * sample. A second with no such peer sends nothing. Keys and times only: no endpoint, no bytes.
 */
export const handshakesChanged = defineEvent(
  'node.{node}.handshakes.changed',
  1,
  Type.Object({
    observedAt: Type.String({ format: 'date-time' }),
    peers: Type.Array(
      Type.Object({
        publicKey: Type.String({ minLength: 44, maxLength: 44 }),
        latestHandshake: Type.Integer({ minimum: 1 }),
      }),
      { minItems: 1, maxItems: 1000 },
    ),
  }),
);

export const nodeEvents = [peersSampled, hostSampled, handshakesChanged];
