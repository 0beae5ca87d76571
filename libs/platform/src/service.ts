import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { busAccess, healthRpc, isBusPrincipal, ownerOf, type BackendService, type EventContract } from '@qw/contracts';
import type { TSchema } from 'typebox';
import { connectDatabase, migrateToLatest, pingDatabase, type Database } from './db/index.ts';
import { platformTables, type PlatformTables } from './db/platform-tables.ts';
import { connectBus, type BusConnection } from './bus/connection.ts';
import { ensureDeadLetterStream, ensureStream } from './bus/streams.ts';
import { OutboxRelay } from './bus/outbox.ts';
import {
  type ConsumerOptions,
  IdempotentConsumer,
  pruneInbox,
  type BatchHandler,
  type EventHandler,
} from './bus/consumer.ts';
import { RpcClient, endpoint, refuseEveryCallerToken, serveRpc, type RpcEndpoint } from './bus/rpc.ts';
import { callerTokenVerifier } from './bus/caller-tokens.ts';
import { startMetricsSampler, type ServiceGauge } from './bus/sampled-metrics.ts';
import { createHttpApp, type HttpApp } from './http/index.ts';
import { createLogger } from './logger/index.ts';
import { pruneRateEvents } from './limits/rate-limits.ts';
import { LeasedTasks, LeasedWorker, pruneTaskRuns, type PeriodicTask } from './tasks/leased-tasks.ts';

export { LeasedTasks, LeasedWorker, defaultLeaseMs, type PeriodicTask, type TaskRule } from './tasks/leased-tasks.ts';

export type ServiceConfig = {
  DATABASE_URL: string;
  /** A hot standby of DATABASE_URL's database: `readDb` reads there (lag-tolerant reads only). */
  DATABASE_READ_URL?: string | undefined;
  /** Connections of each pool (the primary's, and the standby's when there is one); default 10. */
  DATABASE_POOL_MAX?: number | undefined;
  /** Where migrations run when DATABASE_URL goes through PgBouncer: straight to Postgres. */
  DATABASE_MIGRATE_URL?: string | undefined;
  /** Repeated statements prepared on each connection (default); false behind PgBouncer. */
  DATABASE_PREPARED_STATEMENTS?: boolean | undefined;
  NATS_URL: string;
  BUS_NAMESPACE: string;
  LOG_LEVEL: string;
  /** This service's NATS user (default: the service's name) and its password. */
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  /** The file of this service's NATS user JWT and seed (.creds); it names the user. */
  NATS_CREDS?: string | undefined;
  /** The CA of the NATS server's certificate: the connection is TLS, the server verified. */
  NATS_CA_FILE?: string | undefined;
  /** Servers that keep each of this service's streams (3 on a cluster of three); default 1. */
  NATS_STREAM_REPLICAS?: number | undefined;
  /** How long the outbox keeps a published event to publish again after a lossy restart of NATS. */
  OUTBOX_RETENTION_MS?: number | undefined;
  /** The gateway's caller-token public key; without it every request is anonymous (tests of the bus). */
  CALLER_TOKEN_PUBLIC_KEY?: string | undefined;
  /** While the gateway's caller-token key is replaced: the public key it replaces, still accepted. */
  CALLER_TOKEN_PUBLIC_KEY_PREVIOUS?: string | undefined;
};

export type ServiceContext<DB> = {
  db: Kysely<DB>;
  /**
   * Reads that may be a moment behind (a replica's lag): the ones docs/architecture.md names.
   * The standby of DATABASE_READ_URL, or `db` itself without one. Never for a decision that
   * must see the latest write (a rights check, a quota), and never in a transaction of `db`.
   */
  readDb: Kysely<DB>;
  bus: BusConnection;
  rpc: RpcClient;
  logger: Logger;
};

export type ConsumerSpec<DB = any> = {
  /** Durable name, `<service>.<what it does>`. */
  name: string;
  contract: EventContract<TSchema>;
  /** Deliveries before a failing event is dead-lettered (default 8). */
  maxDeliver?: number;
  /** Called after a transaction that handled new events committed (a mail queue's wake). */
  afterCommit?: () => void;
  /** Messages taken into one transaction at most (default 200): fewer for large events. */
  batchSize?: number;
  /** A delivery batch in several transactions at once, by key (see `ConsumerOptions.split`). */
  split?: ConsumerOptions<TSchema>['split'];
} & ({ handler: EventHandler<any, DB>; handleMany?: never } | { handleMany: BatchHandler<any, DB>; handler?: never });

/** Ties a consumer's handler to its contract's payload type and its service's tables. */
export function consumer<S extends TSchema, DB>(
  name: string,
  contract: EventContract<S>,
  handler: EventHandler<S, DB>,
): ConsumerSpec<DB> {
  return { name, contract: contract as EventContract<TSchema>, handler: handler as EventHandler<any, DB> };
}

/**
 * A consumer that takes the events that arrived together in one call (in stream order, duplicates
 * already removed), for effects that are cheaper as one statement than as one per event. If it
 * fails, it is called again with one event at a time, so only the failing event is retried.
 */
export function batchConsumer<S extends TSchema, DB>(
  name: string,
  contract: EventContract<S>,
  handleMany: BatchHandler<S, DB>,
  options: { batchSize?: number; split?: ConsumerOptions<TSchema>['split'] } = {},
): ConsumerSpec<DB> {
  return {
    name,
    contract: contract as EventContract<TSchema>,
    handleMany: handleMany as BatchHandler<any, DB>,
    ...options,
  };
}

export type ServiceDefinition<DB> = {
  name: BackendService | string;
  version: string;
  /** Folder of the service's own migration files (a file: URL or a path). */
  migrations: URL | string;
  /**
   * Events of the streams this service declares, grouped into one stream per owner: its own
   * events, and for telemetry the node agents' samples (a node may not manage streams).
   */
  events?: readonly EventContract[];
  rpc?: (context: ServiceContext<DB>) => RpcEndpoint[];
  consumers?: (context: ServiceContext<DB>) => ConsumerSpec<DB>[];
  /**
   * Work repeated on a timer (retries, clean-ups), run by one replica at a time under a lease
   * (tasks/leased-tasks.ts); stopped before the database closes.
   */
  tasks?: (context: ServiceContext<DB>) => PeriodicTask[];
  /**
   * Periods by task name that replace the tasks' own (the platform's `inbox-prune` and
   * `rate-events-prune` included; `*`: every task): tests run every task every second or so.
   * From TASK_PERIODS.
   */
  taskPeriods?: Readonly<Record<string, number>>;
  /** How long a task lease lasts unrenewed (default 10 s). From TASK_LEASE_MS. */
  taskLeaseMs?: number;
  /** Runs once after migrations, before anything is served (seed data from config). */
  onStart?: (context: ServiceContext<DB>) => Promise<void>;
  /**
   * Long-running parts the service starts itself after its consumers (the analytics projections,
   * whose consumers come and go with rebuilds), stopped before the consumers and the database.
   */
  workers?: (context: ServiceContext<DB>) => Worker[];
  /** Figures of the service's own data for /metrics, sampled with the bus figures (every 5 s). */
  gauges?: (context: ServiceContext<DB>) => ServiceGauge[];
};

export type Worker = {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The durables it reads now, for /metrics (analytics' projections change theirs with rebuilds). */
  durables?(): Array<{ stream: string; durable: string }>;
  /**
   * Run by one replica at a time, under a lease (tasks/leased-tasks.ts `LeasedWorker`): started
   * on the replica that holds it, stopped there when it is lost.
   */
  oneReplica?: boolean;
};

/**
 * Runs `task` every `everyMs` in this process (never overlapping itself) until the returned stop
 * is called: for work every replica does for itself (a worker's own consumers); work shared by the
 * replicas is a definition's `tasks`, run under a lease.
 */
export function startPeriodicTask(task: PeriodicTask, logger: Logger): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = task
      .run()
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
  /** The periodic tasks and the leases this replica holds. */
  tasks: LeasedTasks;
  stop(): Promise<void>;
};

export type StartOptions = {
  logger?: Logger;
  /** Start without the relay (tests stop it between commit and publish). */
  relay?: boolean;
};

/**
 * Brings the schema to the newest migration, through `url` when given. kysely's migrator holds a
 * session advisory lock across its transaction, which a pooler in transaction mode would leave
 * held on some server connection: a service behind PgBouncer migrates on a direct connection.
 */
async function migrateThrough<DB>(url: string | undefined, database: Database<DB>, folder: string): Promise<string[]> {
  if (!url) return migrateToLatest(database.db, database.schema, folder);
  const direct = connectDatabase<DB>(url, database.schema, 1);
  try {
    return await migrateToLatest(direct.db, database.schema, folder);
  } finally {
    await direct.db.destroy();
  }
}

/**
 * The lifecycle every backend service shares: migrate its schema, connect to NATS, declare the
 * streams it needs, start the outbox relay and the consumers, answer its RPCs (always including
 * `<service>.rpc.health`), and build (not listen) its HTTP app for health and metrics.
 */
export async function startService<DB extends PlatformTables>(
  definition: ServiceDefinition<DB>,
  config: ServiceConfig,
  options: StartOptions = {},
): Promise<RunningService<DB>> {
  const logger = options.logger ?? createLogger({ service: definition.name, level: config.LOG_LEVEL });
  const schema = definition.name.replace(/-/g, '_');
  const pooling = { preparedStatements: config.DATABASE_PREPARED_STATEMENTS ?? true };
  const database = connectDatabase<DB>(config.DATABASE_URL, schema, config.DATABASE_POOL_MAX, pooling);
  const replica = config.DATABASE_READ_URL
    ? connectDatabase<DB>(config.DATABASE_READ_URL, schema, config.DATABASE_POOL_MAX, pooling)
    : undefined;
  const platform = platformTables(database.db);
  const startedAt = Date.now();
  const cleanups: Array<() => Promise<void>> = [() => database.db.destroy()];
  if (replica) cleanups.push(() => replica.db.destroy());
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse())
      await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
  };
  try {
    const folder =
      typeof definition.migrations === 'string' ? definition.migrations : fileURLToPath(definition.migrations);
    const applied = await migrateThrough(config.DATABASE_MIGRATE_URL, database, folder);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    const bus = await connectBus({
      url: config.NATS_URL,
      name: definition.name,
      namespace: config.BUS_NAMESPACE,
      logger,
      credsFile: config.NATS_CREDS,
      user: config.NATS_CREDS
        ? config.NATS_USER
        : config.NATS_PASSWORD
          ? (config.NATS_USER ?? definition.name)
          : undefined,
      password: config.NATS_PASSWORD,
      caFile: config.NATS_CA_FILE,
    });
    cleanups.push(() => bus.close());
    const streams = new Map<string, EventContract[]>();
    for (const event of definition.events ?? [])
      streams.set(ownerOf(event), [...(streams.get(ownerOf(event)) ?? []), event]);
    const streamOptions = { replicas: config.NATS_STREAM_REPLICAS ?? 1 };
    for (const [owner, events] of streams) await ensureStream(bus, owner, events, streamOptions);

    const rpc = new RpcClient(bus);
    const context: ServiceContext<DB> = { db: database.db, readDb: replica?.db ?? database.db, bus, rpc, logger };

    await definition.onStart?.(context);

    const relay = new OutboxRelay({
      db: platform,
      commits: database.outboxCommits,
      schema,
      bus,
      logger,
      retentionMs: config.OUTBOX_RETENTION_MS,
    });
    if (options.relay !== false) await relay.start();
    cleanups.push(() => relay.stop());

    const consumers: IdempotentConsumer<TSchema>[] = [];
    const durables: Array<{ stream: string; durable: string }> = [];
    const specs = definition.consumers?.(context) ?? [];
    const workers = definition.workers?.(context) ?? [];
    // Where every consumer of this service (the workers' too) keeps poison messages: declared
    // once here, not by each consumer as it starts.
    if (specs.length > 0 || workers.length > 0) await ensureDeadLetterStream(bus, streamOptions);
    const allowed = bus.user && isBusPrincipal(definition.name) ? busAccess[definition.name].consumes : undefined;
    for (const spec of specs) {
      // Said at start, by name: the server would refuse the consumer with a bare permission error.
      if (allowed && !allowed[ownerOf(spec.contract)]?.includes(spec.name))
        throw new Error(
          `${definition.name}'s consumer ${spec.name} is not among its durables on ${ownerOf(spec.contract)}'s stream in libs/contracts/src/bus-access.ts`,
        );
      const stream = bus.ns.stream(ownerOf(spec.contract));
      const running = new IdempotentConsumer({ ...spec, stream, db: platform, bus, logger });
      await running.start();
      consumers.push(running);
      durables.push({ stream, durable: running.durableName });
      cleanups.push(() => running.stop());
    }

    for (const worker of workers) {
      if (worker.oneReplica) {
        const leased = new LeasedWorker(worker, { db: platform, schema, logger, leaseMs: definition.taskLeaseMs });
        cleanups.push(() => leased.stop());
        await leased.start();
        continue;
      }
      await worker.start();
      cleanups.push(() => worker.stop());
    }

    const tasks: PeriodicTask[] = [
      ...(definition.tasks?.(context) ?? []),
      {
        name: 'rate-events-prune',
        everyMs: 15 * 60_000,
        run: async () => void (await pruneRateEvents(platform)),
      },
      { name: 'task-runs-prune', everyMs: 3600_000, run: async () => void (await pruneTaskRuns(platform)) },
    ];
    if (consumers.length > 0) {
      const durables = consumers.map((running) => running.durableName);
      tasks.push({
        name: 'inbox-prune',
        everyMs: 3600_000,
        run: async () => {
          const deleted = await pruneInbox(platform, durables);
          if (deleted > 0) logger.info({ deleted }, 'inbox rows past retention removed');
        },
      });
    }
    const leased = new LeasedTasks({ db: platform, schema, logger, leaseMs: definition.taskLeaseMs });
    const periods = definition.taskPeriods;
    leased.start(tasks.map((task) => ({ ...task, everyMs: periods?.[task.name] ?? periods?.['*'] ?? task.everyMs })));
    cleanups.push(() => leased.stop());

    cleanups.push(
      startMetricsSampler({
        bus,
        schema,
        durables: () => [...durables, ...workers.flatMap((worker) => worker.durables?.() ?? [])],
        outboxDepth: () => relay.backlog(),
        gauges: definition.gauges?.(context) ?? [],
        logger,
      }),
    );

    const health = endpoint(healthRpc(definition.name as BackendService), async () => {
      await pingDatabase(database.db);
      return { service: definition.name, uptimeSeconds: (Date.now() - startedAt) / 1000, database: 'ok' as const };
    });
    const service = await serveRpc(bus, {
      service: definition.name,
      logger,
      verifyCaller: config.CALLER_TOKEN_PUBLIC_KEY
        ? callerTokenVerifier(config.CALLER_TOKEN_PUBLIC_KEY, config.CALLER_TOKEN_PUBLIC_KEY_PREVIOUS)
        : refuseEveryCallerToken,
      endpoints: [health, ...(definition.rpc?.(context) ?? [])],
    });
    cleanups.push(() => service.stop());

    const http = createHttpApp({
      logger,
      readiness: [
        { name: 'postgres', check: () => pingDatabase(database.db) },
        { name: 'nats', check: async () => void (await bus.nc.flush()) },
      ],
    });
    cleanups.push(() => http.close());

    return { ...context, name: definition.name, relay, http, consumers, tasks: leased, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
