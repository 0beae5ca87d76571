import { Type, type Static } from 'typebox';
import { defineRpc } from '../rpc.ts';

const Uuid = Type.String({ format: 'uuid' });

/**
 * What provisioning holds about the caller, for their export: every device of theirs (personal and
 * in organizations) with its public key and tunnel addresses. Never a private or preshared key.
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
