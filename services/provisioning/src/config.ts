import { Type, type Static } from 'typebox';
import { callerTokenEnv, commonEnv, databaseEnv, httpEnv, mailEnv } from '@qw/platform/config';

export const ProvisioningConfigSchema = Type.Object({
  ...commonEnv,
  ...databaseEnv,
  ...callerTokenEnv,
  ...httpEnv(8083),
  ...mailEnv,
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  PRIVATE_KEY_ENCRYPTION_KEY: Type.String({
    minLength: 43,
    description: '32 bytes, base64: seals device private keys at rest (AES-256-GCM)',
  }),
  PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS: Type.Optional(
    Type.String({
      minLength: 43,
      description: 'while the sealing key is replaced: the key it replaces, which opens rows not yet re-sealed',
    }),
  ),
  VPN_DNS: Type.String({
    default: '',
    description:
      "resolvers that replace each node's own in device configs, comma-separated; empty (the default): configs name the node's resolver inside the tunnel, with the device's content blocking",
  }),
  BUS_IDENTITY_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "the bus identity folder (keys.json, revocations.json): enrolled servers' bus users are issued and revoked with it",
    }),
  ),
  NODE_BUS_URL: Type.Optional(
    Type.String({
      pattern: '^(nats|tls)://',
      description: 'the NATS URL(s) an enrolled server is told to connect to (default NATS_URL)',
    }),
  ),
  PROVISIONING_TEST_CLOCK: Type.Boolean({
    default: false,
    description: "lets the advance-clock RPC move provisioning's time for scheduled key rotation (never in production)",
  }),
});
export type ProvisioningConfig = Static<typeof ProvisioningConfigSchema>;
