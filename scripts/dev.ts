/**
 * `make dev`: sets up the database, then runs every service and the gateway with their output
 * prefixed, until Ctrl-C. Environment variables set in the shell (see .env.example) win.
 */
import concurrently from 'concurrently';
import { backendServices } from '@qw/contracts';
import { setUpDatabase } from './db-setup.ts';

const env = process.env;
const adminUrl = env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const common = {
  NODE_ENV: env.NODE_ENV ?? 'development',
  LOG_LEVEL: env.LOG_LEVEL ?? 'info',
  NATS_URL: env.NATS_URL ?? 'nats://127.0.0.1:4222',
  BUS_NAMESPACE: env.BUS_NAMESPACE ?? '',
};

const databaseUrls = await setUpDatabase(adminUrl, env.DATABASE_NAME ?? 'quietwire');
const ports: Record<string, number> = { identity: 8081, billing: 8082, provisioning: 8083, telemetry: 8084, analytics: 8085 };

const commands = [
  ...backendServices.map((service) => ({
    name: service,
    command: `node --import tsx services/${service}/src/main.ts`,
    env: { ...common, DATABASE_URL: databaseUrls[service]!, HTTP_PORT: String(ports[service]) },
  })),
  {
    name: 'gateway',
    command: 'node --import tsx services/gateway/src/main.ts',
    env: { ...common, HTTP_PORT: env.HTTP_PORT ?? '8080', PUBLIC_URL: env.PUBLIC_URL ?? 'http://localhost:8080' },
  },
];

console.log(`\nQuietwire is starting at ${env.PUBLIC_URL ?? 'http://localhost:8080'} (Ctrl-C stops everything)\n`);
const { result } = concurrently(commands, { prefix: 'name', killOthersOn: ['failure'], restartTries: 0 });
await result.then(
  () => process.exit(0),
  () => process.exit(1),
);
