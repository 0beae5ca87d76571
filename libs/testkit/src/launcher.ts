import { startService, type RunningService, type ServiceDefinition, type StartOptions } from '@qw/platform';
import type { TestDatabase } from './database.ts';
import { sharedNatsUrl } from './nats.ts';

export type TestEnvironment = { database: TestDatabase; namespace: string; natsUrl?: string };

/** Starts a real service in this process against the test's own database and namespace. */
export async function launchService<DB>(definition: ServiceDefinition<DB>, env: TestEnvironment, options: StartOptions = {}): Promise<RunningService<DB>> {
  const databaseUrl = await env.database.provision(definition.name);
  return startService(definition, {
    DATABASE_URL: databaseUrl,
    NATS_URL: env.natsUrl ?? sharedNatsUrl,
    BUS_NAMESPACE: env.namespace,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  }, options);
}

/** Polls until `check` returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
