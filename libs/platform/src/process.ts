import { Type, type Static, type TObject } from 'typebox';
import type { Logger } from 'pino';
import {
  loadConfig,
  loadConfigOrExit,
  parseTaskPeriods,
  previousDiffers,
  productionRequires,
  productionRequiresOneOf,
  taskEnv,
  type ConfigRule,
} from './config/index.ts';
import { createLogger } from './logger/index.ts';
import { startService, type ServiceConfig, type ServiceDefinition } from './service.ts';
import type { PlatformTables } from './db/platform-tables.ts';

type ProcessConfig = ServiceConfig & { HTTP_HOST: string; HTTP_PORT: number };

/** Stops `stop` on SIGINT/SIGTERM once, then exits; a second signal exits at once. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

/**
 * The whole process of a backend service: validated config, start, listen, graceful stop. In
 * production it refuses to start without its NATS password, and, when it sends mail, without an
 * SMTP server (mail written to files would hold reset links and device keys).
 */
export async function runServiceProcess<S extends TObject, DB extends PlatformTables>(
  name: string,
  schema: S,
  build: (config: Readonly<Static<S>>) => ServiceDefinition<DB>,
  serviceRules: ReadonlyArray<ConfigRule<Static<S>>> = [],
): Promise<void> {
  const rules: Array<ConfigRule<Record<string, unknown>>> = [
    productionRequiresOneOf('NATS_CREDS', 'NATS_PASSWORD'),
    ...(serviceRules as ReadonlyArray<ConfigRule<Record<string, unknown>>>),
  ];
  if ('MAIL_URL' in schema.properties) rules.push(productionRequires('MAIL_URL'));
  if ('CALLER_TOKEN_PUBLIC_KEY_PREVIOUS' in schema.properties)
    rules.push(previousDiffers('CALLER_TOKEN_PUBLIC_KEY_PREVIOUS', 'CALLER_TOKEN_PUBLIC_KEY'));
  const loaded = loadConfigOrExit(name, () => loadConfig(schema, process.env, rules as never));
  const config = loaded as unknown as ProcessConfig;
  const tasking = loadConfigOrExit(name, () => loadConfig(Type.Object(taskEnv), process.env));
  const definition: ServiceDefinition<DB> = {
    ...build(loaded),
    taskPeriods: parseTaskPeriods(tasking.TASK_PERIODS),
    taskLeaseMs: tasking.TASK_LEASE_MS,
  };
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL });
  try {
    const running = await startService(definition, config, { logger });
    await running.http.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
    logger.info({ port: config.HTTP_PORT }, 'service ready');
    onShutdown(logger, running.stop);
  } catch (error) {
    logger.fatal({ err: error }, 'service failed to start');
    process.exit(1);
  }
}
