import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busAccess, provisioningEvents } from '@qw/contracts';
import {
  connectDatabase,
  ensureStream,
  migrateToLatest,
  serviceDurableConfig,
  startService,
  type BusConnection,
} from '@qw/platform';
import { createTestDatabase, eventually, startTestBus, type TestBus, type TestDatabase } from '@qw/testkit';
import { telemetryService } from '../src/app.ts';

/**
 * Telemetry's replicas against a fresh bus with the product's permissions: each declares its
 * durables once at start with its own NATS user, before and after the owners of the streams it
 * reads declared them, and none of them fails to start.
 */
let bus: TestBus;
let database: TestDatabase;
let url: string;
let admin: BusConnection;

const startReplicas = (n: number) =>
  Promise.allSettled(
    Array.from({ length: n }, () =>
      startService(telemetryService, {
        DATABASE_URL: url,
        ...bus.env('telemetry'),
        BUS_NAMESPACE: '',
        LOG_LEVEL: 'silent',
      }),
    ),
  );

async function stopAll(outcomes: PromiseSettledResult<{ stop(): Promise<void> }>[]): Promise<void> {
  for (const outcome of outcomes) if (outcome.status === 'fulfilled') await outcome.value.stop();
}

/** Each durable on `owner`'s stream with its settings, by name. */
async function durables(owner: string): Promise<Map<string, Record<string, unknown>>> {
  const list = await admin.jsm.consumers.list(admin.ns.stream(owner)).next();
  const found = new Map<string, Record<string, unknown>>();
  for (const info of list) {
    expect(found.has(info.name)).toBe(false);
    found.set(info.name, info.config as unknown as Record<string, unknown>);
  }
  return found;
}

/** Telemetry's durables on `owner`'s stream must be there once each, with the declared settings. */
async function expectDeclared(owner: 'provisioning' | 'node'): Promise<void> {
  const names = busAccess.telemetry.consumes[owner] ?? [];
  const found = await durables(owner);
  expect([...found.keys()].filter((name) => name.startsWith('telemetry')).sort()).toEqual(
    names.map((name) => admin.ns.durable(name)).sort(),
  );
  for (const name of names) {
    const declared = serviceDurableConfig(admin, name, '');
    expect(found.get(admin.ns.durable(name))).toMatchObject({
      ...declared,
      filter_subject: expect.any(String),
    });
  }
}

beforeAll(async () => {
  bus = await startTestBus();
  database = await createTestDatabase('telemetry-durables');
  url = await database.provision('telemetry');
  // Migrated once beforehand: replicas migrating together is not what is tested here.
  const handle = connectDatabase(url, 'telemetry');
  await migrateToLatest(handle.db, 'telemetry', new URL('../migrations/', import.meta.url).pathname);
  await handle.db.destroy();
  admin = await bus.connect(bus.admin.user);
});

afterAll(async () => {
  await admin?.close();
  await bus?.stop();
  await database?.drop();
});

describe("telemetry's durables, declared by telemetry once per start", () => {
  it('starts three replicas at once before provisioning declared its stream; one durable each once it does', async () => {
    const replicas = await startReplicas(3);
    try {
      expect(replicas.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      // Telemetry owns the node agents' stream: its durables there exist at once.
      await expectDeclared('node');

      // Provisioning, the owner, declares its stream (with its own user) after the replicas waited.
      const provisioning = await bus.connect('provisioning');
      try {
        await ensureStream(provisioning, 'provisioning', provisioningEvents);
      } finally {
        await provisioning.close();
      }
      await eventually(async () => {
        await expectDeclared('provisioning');
        return true;
      });
    } finally {
      await stopAll(replicas);
    }
  });

  it('brings a durable an earlier version left with other settings to the declared ones, with its own rights', async () => {
    const name = busAccess.telemetry.consumes.node![0]!;
    const stream = admin.ns.stream('node');
    await admin.jsm.consumers.update(stream, admin.ns.durable(name), { max_ack_pending: 100, ack_wait: 5_000_000_000 });
    expect((await durables('node')).get(admin.ns.durable(name))).toMatchObject({ max_ack_pending: 100 });

    const replicas = await startReplicas(3);
    try {
      expect(replicas.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      await expectDeclared('node');
      await expectDeclared('provisioning');
    } finally {
      await stopAll(replicas);
    }
  });
});
