import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from './bundle.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The processes built to run as plain JavaScript: the gateway, the backend services and the node agent. */
export const servicesBuilt = [
  'gateway',
  'identity',
  'billing',
  'provisioning',
  'telemetry',
  'analytics',
  'node-agent',
] as const;

/** A service's TypeScript entry point, relative to the repository. */
function serviceEntry(service: string): string {
  return `services/${service}/src/main.ts`;
}

/** Where `make services` (scripts/build-services.ts) writes a service's bundle, relative to the repository. */
export function builtServiceEntry(service: string): string {
  return `services/${service}/dist/main.mjs`;
}

/** The migrations folder a service's bundle carries, when it has one (relative to the repository). */
export function serviceMigrations(service: string): string | undefined {
  const folder = `services/${service}/migrations`;
  return existsSync(path.join(repoRoot, folder)) ? folder : undefined;
}

/**
 * Bundles each service's entry point into services/<name>/dist/main.mjs (bundleEntry), with its
 * migrations; answers how long it took. The bundles sit one folder under the service, as its
 * sources do, so installed packages resolve as they do for the sources.
 */
export async function buildServices(services: readonly string[] = servicesBuilt): Promise<number> {
  const started = performance.now();
  await Promise.all(
    services.map((service) => {
      const migrations = serviceMigrations(service);
      return bundleEntry({
        entry: path.join(repoRoot, serviceEntry(service)),
        outfile: path.join(repoRoot, builtServiceEntry(service)),
        ...(migrations ? { migrations: path.join(repoRoot, migrations) } : {}),
      });
    }),
  );
  return performance.now() - started;
}
