import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';

export const LatestTelemetrySchema = Type.Object({
  device_id: Type.String({ format: 'uuid' }),
  ts: Type.String(),
  rx_bytes: Type.Integer(),
  tx_bytes: Type.Integer(),
  /** Bytes the node received from the device and sent to it in the hours begun within the last 24 hours. */
  rx_bytes_24h: Type.Integer(),
  tx_bytes_24h: Type.Integer(),
  latest_handshake: Type.Union([Type.String(), Type.Null()]),
  endpoint: Type.Union([Type.String(), Type.Null()]),
});

/** The latest status of the given devices (the caller has already been checked against them). */
export const latestTelemetryRpc = defineRpc(
  'telemetry.rpc.latest',
  Type.Object({ device_ids: Type.Array(Type.String({ format: 'uuid' }), { maxItems: 10_000 }) }),
  Type.Object({ devices: Type.Array(LatestTelemetrySchema) }),
);
