import { randomBytes } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, loadConfig, RpcClient, type HttpApp } from '@qw/platform';
import { testCallerKeys } from '@qw/testkit';
import { buildGateway } from '../src/app.ts';
import { accessTokenAudience } from '../src/auth/caller.ts';
import { secretId } from '../src/auth/access-token-secrets.ts';
import { GatewayConfigSchema } from '../src/config.ts';
import { Client, signUp, startStack, type Stack } from './support/stack.ts';

/**
 * Replacing JWT_SECRET without signing anyone out. Ann signs in at a gateway with the old secret;
 * gateways then run with the new secret and the old one as JWT_SECRET_PREVIOUS: her access token
 * still works there, and her refresh gets a token of the new secret. Once the previous secret is
 * dropped, a token of the old secret is refused (the web app refreshes then) and the new one works.
 */
const oldSecret = randomBytes(32).toString('base64url');
const newSecret = randomBytes(32).toString('base64url');
const addressHashKey = randomBytes(32).toString('base64url');

let stack: Stack;
const gateways: HttpApp[] = [];

/** Another gateway process of the same deployment (same bus, same identity), with these secrets. */
async function gatewayWith(secrets: { JWT_SECRET: string; JWT_SECRET_PREVIOUS?: string }): Promise<HttpApp> {
  const config = loadConfig(GatewayConfigSchema, {
    NODE_ENV: 'test',
    ...stack.testBus.env('gateway'),
    CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
    ADDRESS_HASH_KEY: addressHashKey,
    GATEWAY_SERVICES: 'identity',
    WEB_DIST: '/nonexistent',
    ...secrets,
  });
  const logger = createLogger({ service: 'gateway', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const app = await buildGateway(config, { bus: stack.bus, rpc: new RpcClient(stack.bus), logger });
  gateways.push(app);
  await app.ready();
  return app;
}

/** The same browser (cookies and access token) talking to another gateway. */
function at(app: HttpApp, client: Client): Client {
  const moved = new Client(app, client.address);
  moved.cookies = new Map(client.cookies);
  moved.accessToken = client.accessToken;
  return moved;
}

const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid;

beforeAll(async () => {
  stack = await startStack({
    label: 'jwt-rotation',
    gatewayEnv: { JWT_SECRET: oldSecret, ADDRESS_HASH_KEY: addressHashKey },
  });
});
afterAll(async () => {
  for (const app of gateways) await app.close();
  await stack?.stop();
});

describe('rotating JWT_SECRET', () => {
  let ann: Client;
  let oldToken: string;

  it('signs access tokens naming their secret', async () => {
    ann = await signUp(stack, 'ann@example.com', '203.0.113.31');
    oldToken = ann.accessToken!;
    expect(kidOf(oldToken)).toBe(secretId(oldSecret));
    expect((await ann.call('GET', '/api/me')).statusCode).toBe(200);
  });

  it('with the old secret as the previous one: the old token works, and a refresh gets a token of the new secret', async () => {
    const during = at(await gatewayWith({ JWT_SECRET: newSecret, JWT_SECRET_PREVIOUS: oldSecret }), ann);
    expect((await during.call('GET', '/api/me')).statusCode).toBe(200);
    const refreshed = await during.call('POST', '/api/auth/refresh');
    expect(refreshed.statusCode).toBe(200);
    expect(kidOf(during.accessToken!)).toBe(secretId(newSecret));
    expect((await during.call('GET', '/api/me')).statusCode).toBe(200);
    ann = during;
  });

  it('once the previous secret is dropped: a token of the old secret is refused, one of the new works', async () => {
    const after = await gatewayWith({ JWT_SECRET: newSecret });
    const withOld = at(after, ann);
    withOld.accessToken = oldToken;
    expect((await withOld.call('GET', '/api/me')).statusCode).toBe(401);
    expect((await at(after, ann).call('GET', '/api/me')).statusCode).toBe(200);
  });

  it('verifies a token naming no secret (signed before tokens named theirs) with JWT_SECRET only', async () => {
    const after = await gatewayWith({ JWT_SECRET: newSecret, JWT_SECRET_PREVIOUS: oldSecret });
    const claims = JSON.parse(Buffer.from(ann.accessToken!.split('.')[1]!, 'base64url').toString());
    const { iat: _iat, exp: _exp, aud: _aud, ...payload } = claims;
    const unnamed = (secret: string) =>
      createSigner({ key: secret, algorithm: 'HS256', aud: accessTokenAudience, expiresIn: 60_000 })(payload);
    const byNew = at(after, ann);
    byNew.accessToken = unnamed(newSecret);
    expect(kidOf(byNew.accessToken)).toBeUndefined();
    expect((await byNew.call('GET', '/api/me')).statusCode).toBe(200);
    const byOld = at(after, ann);
    byOld.accessToken = unnamed(oldSecret);
    expect((await byOld.call('GET', '/api/me')).statusCode).toBe(401);
  });
});
