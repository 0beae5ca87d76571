import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { backendServices } from '@qw/contracts';
import { serviceRole } from '@qw/platform/db';
import { adminDatabaseUrl, eventually, pgBouncerProblem, startPgBouncer, type PgBouncer } from '@qw/testkit';
import { registerTestNode } from './support/nodes.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { startStack, type Client, type Stack } from './support/stack.ts';

/**
 * The services behind PgBouncer in transaction mode (deploy/pgbouncer.ini): every query of the
 * product goes through it, each transaction on whichever server connection is free, and the
 * product still works (no session state is relied on: transaction-scoped advisory locks, no
 * LISTEN, search_path from the role) with no more server connections than the pool allows.
 */
const problem = pgBouncerProblem();
if (problem) console.info(`pgbouncer: skipped because ${problem}`);

const poolSize = 3;
let bouncer: PgBouncer | undefined;
let stack: Stack | undefined;

describe.skipIf(problem !== null)('the product through PgBouncer in transaction mode', () => {
  beforeAll(async () => {
    bouncer = await startPgBouncer(adminDatabaseUrl, backendServices.map(serviceRole), poolSize);
    stack = await startStack({ label: 'pgbouncer', pooler: bouncer.host, extra: deviceServices });
    await registerTestNode(stack, 'bouncer-node');
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await bouncer?.stop();
  });

  it('sells, adds devices at once and hands the events on, within the pool’s server connections', async () => {
    const people: Client[] = [];
    for (const name of ['ada', 'ben', 'cai', 'dot'])
      people.push(await customerWithPlan(stack!, `${name}.bouncer@example.com`));
    const added = await Promise.all(
      people.flatMap((person, index) =>
        ['Laptop', 'Phone'].map((name) => deviceAdded(person, { name: `${name} ${index}`, platform: 'linux' })),
      ),
    );
    const addresses = added.flatMap((device: { addresses: string[] }) => device.addresses);
    expect(new Set(addresses).size).toBe(addresses.length);
    for (const person of people) expect((await person.call('GET', '/api/devices')).data.devices).toHaveLength(2);

    // The events reached telemetry through its consumers, whose inbox writes go through PgBouncer too.
    await eventually(async () => {
      const row = await sql<{ n: number }>`select count(*)::int as n from device_keys`.execute(
        stack!.services.telemetry!.db,
      );
      return row.rows[0]!.n === added.length;
    }, 15_000);

    const database = stack!.database.name;
    const pools = (await bouncer!.show('POOLS')).filter((row) => row.database === database);
    expect(pools.map((row) => row.user).sort()).toEqual(expect.arrayContaining(['qw_identity', 'qw_provisioning']));
    for (const pool of pools) {
      const server = ['sv_active', 'sv_idle', 'sv_used', 'sv_tested', 'sv_login'].reduce(
        (sum, column) => sum + Number(pool[column] ?? 0),
        0,
      );
      expect(server, `${pool.user}'s server connections`).toBeLessThanOrEqual(poolSize);
    }
    const stats = (await bouncer!.show('STATS')).find((row) => row.database === database);
    expect(Number(stats?.total_xact_count)).toBeGreaterThan(100);
  }, 90_000);
});
