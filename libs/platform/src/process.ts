import type { TObject } from 'typebox';
import type { Logger } from 'pino';
import { loadConfig, loadConfigOrExit } from './config/index.ts';
import { createLogger } from './logger/index.ts';
import { startService, type ServiceConfig, type ServiceDefinition } from './service.ts';

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

/** The whole process of a backend service: validated config, start, listen, graceful stop. */
export async function runServiceProcess<DB>(definition: ServiceDefinition<DB>, schema: TObject): Promise<void> {
  const config = loadConfigOrExit(definition.name, () => loadConfig(schema)) as unknown as ProcessConfig;
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
