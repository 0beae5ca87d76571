import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendServices } from '@qw/contracts';
import {
  createTestDatabase,
  eventually,
  freePort,
  spawnTsProcess,
  startTestBus,
  testCallerKeys,
  type SpawnedProcess,
  type TestBus,
  type TestDatabase,
} from '@qw/testkit';

let database: TestDatabase;
let bus: TestBus;
let gatewayUrl: string;
let internalUrl: string;
const processes = new Map<string, SpawnedProcess>();

async function health(): Promise<{
  status: number;
  body: { status: string; services: Record<string, { status: string; reason?: string }> };
}> {
  const response = await fetch(`${gatewayUrl}/api/health`);
  return { status: response.status, body: (await response.json()) as Awaited<ReturnType<typeof health>>['body'] };
}

beforeAll(async () => {
  database = await createTestDatabase('e2ehealth');
  bus = await startTestBus();
  const common = { LOG_LEVEL: 'info', NODE_ENV: 'test', HTTP_HOST: '127.0.0.1' };
  for (const service of backendServices) {
    const env = {
      ...common,
      ...bus.env(service),
      CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
      DATABASE_URL: await database.provision(service),
      HTTP_PORT: String(await freePort()),
      PRIVATE_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    processes.set(service, await spawnTsProcess(service, `services/${service}/src/main.ts`, env));
  }
  const port = await freePort();
  const internalPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  internalUrl = `http://127.0.0.1:${internalPort}`;
  processes.set(
    'gateway',
    await spawnTsProcess('gateway', 'services/gateway/src/main.ts', {
      ...common,
      ...bus.env('gateway'),
      CALLER_TOKEN_PRIVATE_KEY: testCallerKeys.privateKey,
      HTTP_PORT: String(port),
      INTERNAL_HTTP_PORT: String(internalPort),
      WEB_DIST: '/nonexistent',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADDRESS_HASH_KEY: randomBytes(32).toString('hex'),
    }),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all([...processes.values()].map((p) => p.stop()));
  await bus?.stop();
  await database?.drop();
});

describe('GET /api/health through real processes', () => {
  it('answers ok once every service answers a request/reply round trip', async () => {
    const result = await eventually(
      async () => {
        const answer = await health();
        return answer.status === 200 ? answer : undefined;
      },
      60_000,
      250,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${[...processes.values()].map((p) => `--- ${p.name}\n${p.output().slice(-2000)}`).join('\n')}`,
      );
    });
    expect(result.body.status).toBe('ok');
    expect(Object.keys(result.body.services).sort()).toEqual([...backendServices].sort());
    for (const service of backendServices) expect(result.body.services[service]?.status).toBe('ok');
  }, 90_000);

  it('keeps readiness and metrics off the public port, on the internal listener only', async () => {
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      expect((await fetch(`${gatewayUrl}${path}`)).status, path).toBe(404);
    }
    const ready = await fetch(`${internalUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { nats: 'ok' } });
    expect(await (await fetch(`${internalUrl}/metrics`)).text()).toContain('qw_rpc_seconds');
  });

  it('answers 503 naming the service that stopped while the others stay ok', async () => {
    await processes.get('billing')!.stop();
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.services.billing).toEqual({ status: 'unavailable', reason: 'unavailable' });
    expect(down.body.services.identity?.status).toBe('ok');
  }, 30_000);

  it('writes no addresses or e-mails into any service log', () => {
    for (const process of processes.values()) {
      expect(process.output()).not.toMatch(/127\.0\.0\.1|@example\./);
    }
  });
});
