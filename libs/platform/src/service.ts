import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { eventCatalog, eventsOwnedBy, healthRpc, ownerOf, type BackendService, type EventContract } from '@qw/contracts';
import type { TSchema } from 'typebox';
import { connectDatabase, migrateToLatest, pingDatabase } from './db/index.ts';
import { connectBus, type BusConnection } from './bus/connection.ts';
import { ensureStream } from './bus/streams.ts';
import { OutboxRelay } from './bus/outbox.ts';
import { IdempotentConsumer, pruneInbox, type BatchHandler, type EventHandler } from './bus/consumer.ts';
import { RpcClient, endpoint, serveRpc, type RpcEndpoint } from './bus/rpc.ts';
import { createHttpApp, type HttpApp } from './http/index.ts';
import { createLogger } from './logger/index.ts';

export type ServiceConfig = {
  DATABASE_URL: string;
  NATS_URL: string;
  BUS_NAMESPACE: string;
  LOG_LEVEL: string;
};

export type ServiceContext<DB> = {
  db: Kysely<DB>;
  bus: BusConnection;
  rpc: RpcClient;
  logger: Logger;
};

export type ConsumerSpec = {
  /** Durable name, `<service>.<what it does>`. */
  name: string;
  contract: EventContract<TSchema>;
  /** Deliveries before a failing event is dead-lettered (default 8). */
  maxDeliver?: number;
} & (
  | { handler: EventHandler<any>; handleMany?: never }
  | { handleMany: BatchHandler<any>; handler?: never }
);

/** Ties a consumer's handler to its contract's payload type. */
export function consumer<S extends TSchema>(name: string, contract: EventContract<S>, handler: EventHandler<S>): ConsumerSpec {
  return { name, contract: contract as EventContract<TSchema>, handler };
}

/**
 * A consumer that takes the events that arrived together in one call (in stream order, duplicates
 * already removed), for effects that are cheaper as one statement than as one per event. If it
 * fails, it is called again with one event at a time, so only the failing event is retried.
 */
export function batchConsumer<S extends TSchema>(name: string, contract: EventContract<S>, handleMany: BatchHandler<S>): ConsumerSpec {
  return { name, contract: contract as EventContract<TSchema>, handleMany };
}

export type ServiceDefinition<DB> = {
  name: BackendService | string;
  version: string;
  /** Folder of the service's own migration files (a file: URL or a path). */
  migrations: URL | string;
  /** Events this service publishes; its stream is declared from them. */
  events?: readonly EventContract[];
  rpc?: (context: ServiceContext<DB>) => RpcEndpoint[];
  consumers?: (context: ServiceContext<DB>) => ConsumerSpec[];
  /** Work repeated on a timer (retries, clean-ups); stopped before the database closes. */
  tasks?: (context: ServiceContext<DB>) => PeriodicTask[];
  /** Runs once after migrations, before anything is served (seed data from config). */
  onStart?: (context: ServiceContext<DB>) => Promise<void>;
  /** Where other owners' event lists come from (tests pass their own). */
  catalog?: readonly EventContract[];
};

export type PeriodicTask = { name: string; everyMs: number; run: () => Promise<void> };

/** Runs `task` every `everyMs` (never overlapping itself) until the returned stop is called. */
export function startPeriodicTask(task: PeriodicTask, logger: Logger): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = task.run()
      .catch((error: unknown) => logger.warn({ err: error, task: task.name }, 'periodic task failed'))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, task.everyMs);
      });
  };
  timer = setTimeout(tick, task.everyMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

export type RunningService<DB> = ServiceContext<DB> & {
  name: string;
  relay: OutboxRelay;
  http: HttpApp;
  consumers: IdempotentConsumer<TSchema>[];
  stop(): Promise<void>;
};

export type StartOptions = {
  logger?: Logger;
  /** Start without the relay (tests stop it between commit and publish). */
  relay?: boolean;
};

/**
 * The lifecycle every backend service shares: migrate its schema, connect to NATS, declare the
 * streams it needs, start the outbox relay and the consumers, answer its RPCs (always including
 * `<service>.rpc.health`), and build (not listen) its HTTP app for health and metrics.
 */
export async function startService<DB>(definition: ServiceDefinition<DB>, config: ServiceConfig, options: StartOptions = {}): Promise<RunningService<DB>> {
  const logger = options.logger ?? createLogger({ service: definition.name, level: config.LOG_LEVEL });
  const schema = definition.name.replace(/-/g, '_');
  const database = connectDatabase<DB>(config.DATABASE_URL, schema);
  const startedAt = Date.now();
  const cleanups: Array<() => Promise<void>> = [() => database.db.destroy()];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
  };
  try {
    const folder = typeof definition.migrations === 'string' ? definition.migrations : fileURLToPath(definition.migrations);
    const applied = await migrateToLatest(database.db as Kysely<any>, schema, folder);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    const bus = await connectBus({ url: config.NATS_URL, name: definition.name, namespace: config.BUS_NAMESPACE, logger });
    cleanups.push(() => bus.close());
    const catalog = definition.catalog ?? eventCatalog;
    if (definition.events && definition.events.length > 0) await ensureStream(bus, definition.name, definition.events);

    const rpc = new RpcClient(bus);
    const context: ServiceContext<DB> = { db: database.db, bus, rpc, logger };

    await definition.onStart?.(context);

    const relay = new OutboxRelay({ db: database.db as Kysely<any>, commits: database.outboxCommits, schema, bus, logger });
    if (options.relay !== false) await relay.start();
    cleanups.push(() => relay.stop());

    const consumers: IdempotentConsumer<TSchema>[] = [];
    for (const spec of definition.consumers?.(context) ?? []) {
      const owner = ownerOf(spec.contract);
      const ownerEvents = eventsOwnedBy(owner, catalog);
      const stream = await ensureStream(bus, owner, ownerEvents.length > 0 ? ownerEvents : [spec.contract]);
      const running = new IdempotentConsumer({ ...spec, stream, db: database.db as Kysely<any>, bus, logger });
      await running.start();
      consumers.push(running);
      cleanups.push(() => running.stop());
    }

    for (const task of definition.tasks?.(context) ?? []) cleanups.push(startPeriodicTask(task, logger));
    if (consumers.length > 0) {
      const durables = consumers.map((running) => running.durableName);
      const pruneTask: PeriodicTask = {
        name: 'inbox-prune',
        everyMs: 3600_000,
        run: async () => {
          const deleted = await pruneInbox(database.db as Kysely<any>, durables);
          if (deleted > 0) logger.info({ deleted }, 'inbox rows past retention removed');
        },
      };
      cleanups.push(startPeriodicTask(pruneTask, logger));
    }

    const health = endpoint(healthRpc(definition.name as BackendService), async () => {
      await pingDatabase(database.db as Kysely<any>);
      return { service: definition.name, uptimeSeconds: (Date.now() - startedAt) / 1000, database: 'ok' as const };
    });
    const service = await serveRpc(bus, { service: definition.name, logger, endpoints: [health, ...(definition.rpc?.(context) ?? [])] });
    cleanups.push(() => service.stop());

    const http = createHttpApp({
      logger,
      readiness: [
        { name: 'postgres', check: () => pingDatabase(database.db as Kysely<any>) },
        { name: 'nats', check: async () => void (await bus.nc.flush()) },
      ],
    });
    cleanups.push(() => http.close());

    return { ...context, name: definition.name, relay, http, consumers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
