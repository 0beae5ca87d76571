/**
 * `make seed-demo`: two years of demo customers in the running `make dev` product (see
 * scripts/demo-history.ts). Once only: a second run finds the demo customers and stops.
 */
import pg from 'pg';
import { callerTokenSigner, connectBus, createLogger } from '@qw/platform';
import { devSecrets } from './dev-secrets.ts';
import { seedDemoHistory } from './demo-history.ts';
import { devIdentityFolder, devNatsTls } from './dev-bus.ts';
import { credsFile } from './bus-identities.ts';
import { operatorUser } from '@qw/contracts';

export const demoDomain = 'demo.quietwire.test';

/** True when the demo customers are there already. */
export async function hasDemoHistory(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from identity.users where email like $1 limit 1', [`%@${demoDomain}`]);
    return (found.rowCount ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

/** The dev bus as its operator user, which may ask every RPC (the demo seeds sign each caller as the gateway would). */
export function connectDevBus(natsUrl: string, name: string) {
  return connectBus({
    url: natsUrl,
    name,
    namespace: '',
    logger: createLogger({ service: name, level: 'warn' }),
    credsFile: credsFile(devIdentityFolder, operatorUser),
    caFile: devNatsTls().caFile,
  });
}

export async function seedDevDemoHistory(options: {
  natsUrl: string;
  databaseUrl: string;
  log: (line: string) => void;
}): Promise<void> {
  if (await hasDemoHistory(options.databaseUrl)) {
    options.log('  demo history: already there (customers @demo.quietwire.test)');
    return;
  }
  const secrets = devSecrets();
  const bus = await connectDevBus(options.natsUrl, 'seed-demo');
  try {
    options.log("  demo history: two years of customers through billing's test clock (about a minute)…");
    const result = await seedDemoHistory({
      bus,
      signCaller: callerTokenSigner(secrets.CALLER_TOKEN_PRIVATE_KEY!),
      log: options.log,
    });
    options.log(
      `  demo history: ${result.customers} customers, ${result.browsers} sign-ups without a plan and ${result.visitDays} days of visits in ${result.seconds.toFixed(0)} s — see /admin/analytics`,
    );
  } finally {
    await bus.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = process.env;
  const adminUrl = new URL(env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  adminUrl.pathname = `/${env.DATABASE_NAME ?? 'quietwire'}`;
  await seedDevDemoHistory({
    natsUrl: `nats://127.0.0.1:${Number(env.DEV_NATS_PORT ?? 4223)}`,
    databaseUrl: adminUrl.toString(),
    log: (line) => console.log(line),
  });
  process.exit(0);
}
