import {
  startService,
  type PlatformTables,
  type RunningService,
  type ServiceDefinition,
  type StartOptions,
} from '@qw/platform';
import type { TestDatabase } from './database.ts';
import type { BusPrincipal } from '@qw/contracts';
import { sharedNatsUrl } from './nats.ts';
import { testCallerKeys, type TestBus } from './bus.ts';

/**
 * Where a service runs in a test: its database, and either a test bus (authentication and the
 * product's permissions on, as in production) or a namespace on a NATS server without
 * authentication (tests of the bus mechanics with probe services).
 */
export type TestEnvironment = {
  database: TestDatabase;
  /**
   * The admin URL of a hot standby of the database's server (see startPrivatePostgres): the
   * service gets it as DATABASE_READ_URL, the same role and database on the standby.
   */
  standby?: string;
  /**
   * The `host:port` of a PgBouncer in front of the database's server: the service's queries go
   * through it (DATABASE_URL, unprepared) and its migrations straight to Postgres (DATABASE_MIGRATE_URL).
   */
  pooler?: string;
  /** OUTBOX_RETENTION_MS (default here 0: a published row is deleted at once). */
  outboxRetentionMs?: number;
} & ({ bus: TestBus; namespace?: never; natsUrl?: never } | { bus?: never; namespace: string; natsUrl?: string });

/** Starts a real service in this process against the test's own database and bus. */
export async function launchService<DB extends PlatformTables>(
  definition: ServiceDefinition<DB>,
  env: TestEnvironment,
  options: StartOptions = {},
): Promise<RunningService<DB>> {
  const databaseUrl = await env.database.provision(definition.name);
  const bus = env.bus
    ? { ...env.bus.env(definition.name as BusPrincipal), BUS_NAMESPACE: '' }
    : { NATS_URL: env.natsUrl ?? sharedNatsUrl, BUS_NAMESPACE: env.namespace };
  return startService(
    definition,
    {
      // Tests that count or scan the outbox see it empty once published, as before the retention;
      // those about the retention (and the cluster's) set it.
      OUTBOX_RETENTION_MS: env.outboxRetentionMs ?? env.bus?.outboxRetentionMs ?? 0,
      ...(env.bus?.streamReplicas ? { NATS_STREAM_REPLICAS: env.bus.streamReplicas } : {}),
      ...(env.pooler
        ? {
            DATABASE_URL: throughHost(databaseUrl, env.pooler),
            DATABASE_MIGRATE_URL: databaseUrl,
            DATABASE_PREPARED_STATEMENTS: false,
          }
        : { DATABASE_URL: databaseUrl }),
      ...(env.standby ? { DATABASE_READ_URL: throughHost(databaseUrl, new URL(env.standby).host) } : {}),
      ...bus,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      CALLER_TOKEN_PUBLIC_KEY: testCallerKeys.publicKey,
    },
    options,
  );
}

/** `url` (a role's connection to a database) pointed at `host` (host:port), another server or a pooler. */
function throughHost(url: string, host: string): string {
  const moved = new URL(url);
  moved.host = host;
  return moved.toString();
}

/** Polls until `check` returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * True once a durable consumer has handled everything delivered to it: nothing left to deliver,
 * nothing delivered but unacknowledged. What tests wait for instead of sleeping, before they
 * count effects as final.
 */
export async function consumerSettled(
  bus: {
    jsm: {
      consumers: { info(stream: string, durable: string): Promise<{ num_pending: number; num_ack_pending: number }> };
    };
    ns: { stream(owner: string): string; durable(name: string): string };
  },
  owner: string,
  durable: string,
): Promise<boolean> {
  const info = await bus.jsm.consumers.info(bus.ns.stream(owner), bus.ns.durable(durable));
  return info.num_pending === 0 && info.num_ack_pending === 0;
}
