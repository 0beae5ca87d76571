import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });

/**
 * What provisioning holds about the caller, for their export: every device of theirs (personal and
 * in organizations) with its public key and tunnel addresses, and what telemetry keeps of it (asked
 * by provisioning, which has checked whose devices they are). Never a private or preshared key.
 */
export const ProvisioningAccountDataSchema = Type.Object({
  devices: Type.Array(
    Type.Object(
      {
        id: Uuid,
        name: Type.String(),
        platform: Type.String(),
        organization_id: Type.Union([Uuid, Type.Null()]),
        created_at: Type.String(),
        status: Type.String(),
        public_key: Type.Union([Type.String(), Type.Null()]),
        addresses: Type.Array(Type.String()),
        server: Type.Union([Type.String(), Type.Null()]),
        key_created_at: Type.Union([Type.String(), Type.Null()]),
        /** Tunnel privacy: the content blocking categories on, and what goes through the tunnel. */
        blocking: Type.Array(Type.String()),
        split_tunnel: Type.String(),
        custom_routes: Type.Array(Type.String()),
        /** From telemetry: the newest handshake a node saw, and the network it came from (cut to /24 or /48). */
        last_handshake_at: Type.Union([Type.String(), Type.Null()]),
        connected_from: Type.Union([Type.String(), Type.Null()]),
        /** From telemetry: bytes the device received through the tunnel, and sent, in the last 24 hours. */
        received_bytes_24h: Type.Integer(),
        sent_bytes_24h: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  ),
});
export type ProvisioningAccountData = Static<typeof ProvisioningAccountDataSchema>;

export const exportProvisioningDataRpc = defineRpc(
  'provisioning.rpc.export-account',
  Type.Object({}),
  ProvisioningAccountDataSchema,
);
