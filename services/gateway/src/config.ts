import { fileURLToPath } from 'node:url';
import { Type, type Static } from 'typebox';
import { backendServices } from '@qw/contracts';
import { commonEnv, httpEnv } from '@qw/platform/config';

const defaultWebDist = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

export const GatewayConfigSchema = Type.Object({
  ...commonEnv,
  ...httpEnv(8080),
  HTTP_HOST: Type.String({ default: 'localhost', minLength: 1 }),
  PUBLIC_URL: Type.String({ default: 'http://localhost:8080', pattern: '^https?://' }),
  WEB_DIST: Type.String({
    default: defaultWebDist,
    description: 'folder of the built web app; served with an SPA fallback',
  }),
  GATEWAY_SERVICES: Type.String({
    default: backendServices.join(','),
    pattern: `^(${backendServices.join('|')})(,(${backendServices.join('|')}))*$`,
    description: 'the backend services /api/health requires',
  }),
  JWT_SECRET: Type.String({ minLength: 32, description: 'signs access tokens; generated into var/ for development' }),
  JWT_SECRET_PREVIOUS: Type.Optional(
    Type.String({
      minLength: 32,
      description: 'while JWT_SECRET is replaced: the secret it replaces, which still verifies the tokens it signed',
    }),
  ),
  ADDRESS_HASH_KEY: Type.String({
    minLength: 32,
    description: 'keys the HMAC that replaces client addresses in rate limits',
  }),
  ACCESS_TOKEN_SECONDS: Type.Integer({ minimum: 60, maximum: 3600, default: 900 }),
  RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  VISITS_FLUSH_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 5000,
    description: 'how often counted page views go to analytics (a crash loses at most this much counting)',
  }),
  CALLER_TOKEN_PRIVATE_KEY: Type.String({
    minLength: 40,
    description:
      'Ed25519, base64 PKCS#8: signs the caller assertions services verify; generated into var/ for development',
  }),
  INTERNAL_HTTP_HOST: Type.String({ default: '127.0.0.1', minLength: 1, description: 'health, readiness and metrics' }),
  INTERNAL_HTTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 9080 }),
  TRUST_PROXY: Type.String({
    default: 'false',
    pattern: '^(false|true|[0-9]{1,2}|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$',
    description: "false; true (any proxy); a hop count; or the proxies' addresses/CIDRs, comma-separated",
  }),
  ALLOW_TEST_PAYMENTS: Type.Boolean({ default: false, description: 'production: the test payment routes too' }),
});

/** fastify's trustProxy from TRUST_PROXY: whose X-Forwarded-For names the client. */
export function trustProxyOption(value: string): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9]{1,2}$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value.split(',');
}
export type GatewayConfig = Static<typeof GatewayConfigSchema>;
