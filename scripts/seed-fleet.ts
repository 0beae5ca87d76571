/**
 * Devices for `make dev`'s fleet, made through provisioning's own RPCs as the gateway asks them
 * for a signed-in person, so placement puts them on the nodes and the agents receive their peers:
 * the demo admin's two devices the demo clients connect with (one chooses Europe, one Asia), and
 * one or two devices for each demo customer with a plan (scripts/demo-history.ts), Automatic from
 * a country of theirs, so placement spreads them over the regions. A customer who has devices already is left
 * as they are, so every `make dev` may run it.
 */
import pg from 'pg';
import {
  type Caller,
  createDeviceRpc,
  createOrgDeviceRpc,
  deviceConfigRpc,
  listDevicesRpc,
  type Platform,
} from '@qw/contracts';
import { type BusConnection, RpcClient } from '@qw/platform/bus';
import type { DevFleetPlan } from './dev-fleet-plan.ts';

type SignCaller = (caller: Caller) => Caller;

const person = (signCaller: SignCaller, userId: string) =>
  signCaller({ userId, accountType: 'personal', isAdmin: false, emailVerified: true });

async function query<T extends pg.QueryResultRow>(databaseUrl: string, text: string, values: unknown[]) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until every node of the plan has registered and reported (placement takes only reachable nodes). */
export async function waitForFleet(databaseUrl: string, plan: DevFleetPlan, timeoutMs = 120_000): Promise<void> {
  const names = plan.nodes.map((node) => node.name);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await query<{ name: string }>(
      databaseUrl,
      `select name from provisioning.nodes where name = any($1) and last_seen_at > now() - interval '30 seconds'`,
      [names],
    ).catch(() => []);
    if (rows.length === names.length) return;
    if (Date.now() > deadline)
      throw new Error(`the nodes did not all register in time (${rows.map((r) => r.name).join(', ') || 'none'})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * The demo admin's devices the demo clients use (made when missing) and each one's config file,
 * in the order of the plan's clients.
 */
export async function demoClientConfigs(options: {
  bus: BusConnection;
  signCaller: SignCaller;
  databaseUrl: string;
  adminEmail: string;
  plan: DevFleetPlan;
}): Promise<Array<{ config: string; node: string | null }>> {
  const [admin] = await query<{ id: string }>(options.databaseUrl, 'select id from identity.users where email = $1', [
    options.adminEmail,
  ]);
  if (!admin) throw new Error('the demo admin is not there');
  const rpc = new RpcClient(options.bus, 30_000);
  const caller = person(options.signCaller, admin.id);
  const { devices } = await rpc.request(listDevicesRpc, {}, caller);
  const configs: Array<{ config: string; node: string | null }> = [];
  for (const client of options.plan.clients) {
    const device =
      devices.find((d) => d.name === client.device) ??
      (await rpc.request(createDeviceRpc, { name: client.device, platform: 'linux', region: client.region }, caller))
        .device;
    const { config } = await rpc.request(deviceConfigRpc, { device_id: device.id }, caller);
    configs.push({ config, node: device.node?.name ?? null });
  }
  return configs;
}

const deviceKinds: Array<{ name: string; platform: Platform }> = [
  { name: 'Laptop', platform: 'macos' },
  { name: 'Phone', platform: 'ios' },
  { name: 'Desktop', platform: 'windows' },
  { name: 'Android phone', platform: 'android' },
  { name: 'Steam Deck', platform: 'linux' },
  { name: 'Home router', platform: 'router' },
];

/** Where the demo customers are: placement starts at the region nearest each (Automatic). */
const countries = ['US', 'CA', 'BR', 'MX', 'DE', 'FR', 'GB', 'NL', 'PL', 'ES', 'JP', 'SG', 'IN', 'AU', 'KR'];

type DemoCustomer = { email: string; user_id: string; org_id: string | null; plan_code: string };

/** One or two devices for each demo customer with an active plan and no device yet; answers how many were made. */
export async function seedFleetDevices(options: {
  bus: BusConnection;
  signCaller: SignCaller;
  databaseUrl: string;
  demoDomain: string;
}): Promise<number> {
  const customers = await query<DemoCustomer>(
    options.databaseUrl,
    `select c.email, c.user_id, s.org_id, s.plan_code
       from billing.subscriptions s join billing.customers c on c.id = s.customer_id
      where c.email like $1 and s.status = 'active' and c.user_id is not null
        and not exists (select 1 from provisioning.devices d where d.user_id = c.user_id)
      order by c.email`,
    [`%@${options.demoDomain}`],
  );
  const rpc = new RpcClient(options.bus, 30_000);
  let made = 0;
  let refused: Error | undefined;
  for (const [i, customer] of customers.entries()) {
    const caller = person(options.signCaller, customer.user_id);
    for (let n = 0; n < (i % 3 === 0 ? 2 : 1); n++) {
      const kind = deviceKinds[(i + n * 2) % deviceKinds.length]!;
      const body = { name: kind.name, platform: kind.platform, country: countries[(i * 7) % countries.length]! };
      try {
        if (customer.org_id) await rpc.request(createOrgDeviceRpc, { org_id: customer.org_id, ...body }, caller);
        else await rpc.request(createDeviceRpc, body, caller);
        made++;
      } catch (error) {
        refused ??= error as Error;
      }
    }
  }
  if (made === 0 && refused) throw refused;
  return made;
}
