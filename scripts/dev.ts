/**
 * `make dev`: sets up the database, then runs every service and the gateway with their output
 * prefixed, until Ctrl-C. Environment variables set in the shell (see .env.example) win.
 */
import concurrently from 'concurrently';
import { backendServices, nodeUser, regionLabel } from '@qw/contracts';
import { callerTokenSigner } from '@qw/platform';
import { builtServiceEntry, buildServices } from '@qw/build';
import { setUpDatabase } from './db-setup.ts';
import { devSecrets } from './dev-secrets.ts';
import { demoAdminEmail, seedDemo } from './seed-demo.ts';
import { connectDevBus, demoDomain, seedDevDemoHistory } from './seed-demo-history.ts';
import { connectDemoClient, prepareDevFleet, removeDevFleet, startDemoTraffic } from './dev-fleet.ts';
import { demoClientConfigs, seedFleetDevices, waitForFleet } from './seed-fleet.ts';
import { devIdentityFolder, devNatsTls, writeDevBusConfig } from './dev-bus.ts';

const env = process.env;
const adminUrl = env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const natsPort = Number(env.DEV_NATS_PORT ?? 4223);
const common = {
  NODE_ENV: env.NODE_ENV ?? 'development',
  LOG_LEVEL: env.LOG_LEVEL ?? 'info',
  NATS_URL: `nats://127.0.0.1:${natsPort}`,
  NATS_CA_FILE: devNatsTls().caFile,
  BUS_NAMESPACE: env.BUS_NAMESPACE ?? '',
};

const startedAt = Date.now();
// Three WireGuard nodes in network namespaces, one per region, and two demo clients (scripts/dev-fleet.ts).
const fleet = prepareDevFleet(env);
const agents = 'agents' in fleet ? fleet.agents : [];
let stopDemoTraffic: () => void = () => undefined;
let running = false;
let takenDown = false;
/**
 * Whatever way `make dev` ends, the namespaces, their wireguard-go daemons and the bridge go with
 * it: at once on a signal (this process may not outlive it long: Ctrl-C reaches npx and tsx too),
 * or on exit. Before the processes run, a signal also ends this process.
 */
const takeDown = (signal?: NodeJS.Signals) => {
  if (!takenDown) {
    takenDown = true;
    stopDemoTraffic();
    if ('plan' in fleet) removeDevFleet(fleet.plan);
  }
  if (signal && !running) process.exit(130);
};
process.on('exit', () => takeDown());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => takeDown(signal));
const nodeNames = agents.map((agent) => agent.name);
const secrets = devSecrets();
const bus = await writeDevBusConfig({ port: natsPort, nodes: nodeNames });
const natsConfig = bus.configFile;
const natsUser = (user: string) => ({ NATS_CREDS: bus.creds[user]! });
const publicUrl = env.PUBLIC_URL ?? 'http://localhost:8080';
const databaseUrls = await setUpDatabase(adminUrl, env.DATABASE_NAME ?? 'quietwire');
// Every process runs its bundle (plain JavaScript, libs/build), built here from the sources as they
// are now: a few seconds, against several seconds of CPU per process for a TypeScript loader.
const built = await buildServices();
console.log(`built the services in ${Math.round(built)} ms`);
const run = (service: string) => `exec node --enable-source-maps ${builtServiceEntry(service)}`;
const ports: Record<string, number> = {
  identity: 8081,
  billing: 8082,
  provisioning: 8083,
  telemetry: 8084,
  analytics: 8085,
};

// `exec`: the service replaces the shell, so a graceful stop on SIGTERM exits 0 and is not
// mistaken for a crash to restart.
const commands: Array<{ name: string; command: string; env: Record<string, string> }> = [
  { name: 'nats', command: `exec ${env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server'} -c ${natsConfig}`, env: {} },
  ...backendServices.map((service) => ({
    name: service,
    command: run(service),
    env: {
      ...common,
      ...natsUser(service),
      CALLER_TOKEN_PUBLIC_KEY: secrets.CALLER_TOKEN_PUBLIC_KEY!,
      DATABASE_URL: databaseUrls[service]!,
      HTTP_PORT: String(ports[service]),
      PUBLIC_URL: publicUrl,
      ADMIN_EMAILS: env.ADMIN_EMAILS ?? demoAdminEmail,
      PRIVATE_KEY_ENCRYPTION_KEY: env.PRIVATE_KEY_ENCRYPTION_KEY ?? secrets.PRIVATE_KEY_ENCRYPTION_KEY!,
      BILLING_TEST_CLOCK: env.BILLING_TEST_CLOCK ?? 'true',
      // Provisioning issues enrolled servers' bus users and revokes retired ones' with the dev bus's keys.
      ...(service === 'provisioning' ? { BUS_IDENTITY_DIR: env.BUS_IDENTITY_DIR ?? devIdentityFolder } : {}),
      // The demo history's back-dated sign-ups (identity refuses them in production).
      ...(service === 'identity'
        ? {
            DEMO_TOOLS: env.DEMO_TOOLS ?? (common.NODE_ENV === 'production' ? 'false' : 'true'),
            // Accounts at reserved test domains (the demo's example.test people) are test accounts.
            MARK_TEST_ACCOUNTS: env.MARK_TEST_ACCOUNTS ?? (common.NODE_ENV === 'production' ? 'false' : 'true'),
          }
        : {}),
      ...(env.STRIPE_SECRET_KEY ? { STRIPE_SECRET_KEY: env.STRIPE_SECRET_KEY } : {}),
      ...(env.STRIPE_WEBHOOK_SECRET ? { STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET } : {}),
      ...(env.MAIL_URL ? { MAIL_URL: env.MAIL_URL } : {}),
    },
  })),
  {
    name: 'gateway',
    command: run('gateway'),
    env: {
      ...common,
      ...natsUser('gateway'),
      CALLER_TOKEN_PRIVATE_KEY: secrets.CALLER_TOKEN_PRIVATE_KEY!,
      HTTP_PORT: env.HTTP_PORT ?? '8080',
      PUBLIC_URL: publicUrl,
      JWT_SECRET: env.JWT_SECRET ?? secrets.JWT_SECRET!,
      ADDRESS_HASH_KEY: env.ADDRESS_HASH_KEY ?? secrets.ADDRESS_HASH_KEY!,
    },
  },
];

for (const agent of agents) {
  commands.push({
    name: agent.name,
    command: run('node-agent'),
    env: { ...common, ...natsUser(nodeUser(agent.name)), ...agent.env },
  });
}

console.log(`\nQuietwire is starting at ${publicUrl} (Ctrl-C stops everything)\n`);
if ('skipped' in fleet) console.log(`No WireGuard nodes are started: ${fleet.skipped}.`);
// A process that falls over is started again (a node agent may wait for its interface).
running = true;
const { result } = concurrently(commands, { prefix: 'name', restartTries: 5, restartDelay: 3000 });
const databaseAdminUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = `/${env.DATABASE_NAME ?? 'quietwire'}`;
  return url.toString();
})();
seedDemo({ publicUrl, adminPassword: secrets.DEMO_ADMIN_PASSWORD!, databaseAdminUrl })
  .then(
    () =>
      console.log(
        [
          '',
          `  Quietwire is running at ${publicUrl}`,
          `  Admin sign-in: ${demoAdminEmail} / ${secrets.DEMO_ADMIN_PASSWORD}   (kept in var/dev-secrets.json; it has a Personal plan)`,
          ...('plan' in fleet
            ? [
                '  WireGuard nodes (each in its network namespace, reachable from this machine):',
                ...fleet.plan.nodes.map(
                  (n) =>
                    `    ${n.name.padEnd(6)} ${`${n.city}, ${regionLabel(n.region)}`.padEnd(26)} ${n.endpoint.padEnd(18)} ${n.tags.join(',') || '-'}   (sudo ip netns exec ${n.namespace} wg show ${n.iface})`,
                ),
              ]
            : [`  WireGuard nodes: none (${fleet.skipped})`]),
          `  API documentation: ${publicUrl}/api/docs   Mail without MAIL_URL: var/mail/*.eml`,
          '',
        ].join('\n'),
      ),
    (error: unknown) => console.error(`demo seed failed: ${(error as Error).message}`),
  )
  .then(() => startDemoClients())
  .then(async () => {
    // Two years of demo customers for the Analytics page, once, unless DEMO_HISTORY=0.
    if (env.DEMO_HISTORY === '0' || env.STRIPE_SECRET_KEY) return;
    await seedDevDemoHistory({
      natsUrl: common.NATS_URL,
      databaseUrl: databaseAdminUrl,
      log: (line) => console.log(line),
    }).catch((error: unknown) => console.error(`demo history failed: ${(error as Error).message}`));
  })
  .then(() => seedCustomerDevices());

/** The demo admin's two devices, each connected from its client's namespace, pinging its node now and then. */
async function startDemoClients(): Promise<void> {
  if (!('plan' in fleet)) return;
  const plan = fleet.plan;
  try {
    await waitForFleet(databaseAdminUrl, plan);
    const bus = await connectDevBus(common.NATS_URL, 'seed-fleet');
    try {
      const configs = await demoClientConfigs({
        bus,
        signCaller: callerTokenSigner(secrets.CALLER_TOKEN_PRIVATE_KEY!),
        databaseUrl: databaseAdminUrl,
        adminEmail: demoAdminEmail,
        plan,
      });
      const clients = plan.clients.map((client, i) => connectDemoClient(client, configs[i]!.config, plan.world.subnet));
      stopDemoTraffic = startDemoTraffic(clients);
      for (const [i, { client, target }] of clients.entries())
        console.log(
          `  demo client ${client.name}: ${demoAdminEmail}'s "${client.device}" through ${configs[i]!.node ?? '?'}, pinging ${target} every 5 s (namespace ${client.namespace})`,
        );
      console.log(`  the fleet is up ${((Date.now() - startedAt) / 1000).toFixed(0)} s after the start`);
    } finally {
      await bus.close();
    }
  } catch (error) {
    console.error(`demo clients failed: ${(error as Error).message}`);
  }
}

/** Devices for the demo customers with a plan, spread over the nodes by placement (once each). */
async function seedCustomerDevices(): Promise<void> {
  if (!('plan' in fleet)) return;
  try {
    const bus = await connectDevBus(common.NATS_URL, 'seed-fleet');
    try {
      const made = await seedFleetDevices({
        bus,
        signCaller: callerTokenSigner(secrets.CALLER_TOKEN_PRIVATE_KEY!),
        databaseUrl: databaseAdminUrl,
        demoDomain,
      });
      if (made > 0)
        console.log(`  demo fleet: ${made} devices of demo customers placed on the nodes — see /admin/servers`);
    } finally {
      await bus.close();
    }
  } catch (error) {
    console.error(`demo fleet devices failed: ${(error as Error).message}`);
  }
}
await result.then(
  () => process.exit(0),
  () => process.exit(1),
);
