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
  WEB_DIST: Type.String({ default: defaultWebDist, description: 'folder of the built web app; served with an SPA fallback' }),
  GATEWAY_SERVICES: Type.String({
    default: backendServices.join(','),
    pattern: `^(${backendServices.join('|')})(,(${backendServices.join('|')}))*$`,
    description: 'the backend services /api/health requires',
  }),
  JWT_SECRET: Type.String({ minLength: 32, description: 'signs access tokens; generated into var/ for development' }),
  ADDRESS_HASH_KEY: Type.String({ minLength: 32, description: 'keys the HMAC that replaces client addresses in rate limits' }),
  ACCESS_TOKEN_SECONDS: Type.Integer({ minimum: 60, maximum: 3600, default: 900 }),
  RPC_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
});
export type GatewayConfig = Static<typeof GatewayConfigSchema>;
