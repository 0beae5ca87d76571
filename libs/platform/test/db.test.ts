import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import { connectDatabase, migrateToLatest } from '../src/db/index.ts';

let database: TestDatabase;
let billingUrl: string;
let identityUrl: string;

async function asRole<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  database = await createTestDatabase('roles');
  billingUrl = await database.provision('billing');
  identityUrl = await database.provision('identity');
  const billing = connectDatabase<any>(billingUrl, 'billing');
  await migrateToLatest(billing.db, 'billing');
  await billing.db.destroy();
});

afterAll(async () => {
  await database?.drop();
});

describe('schema per service', () => {
  it('migrates the platform tables into the service schema and records them there', async () => {
    const tables = await asRole(billingUrl, (c) => c.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'billing' order by table_name`));
    expect(tables.rows.map((r) => r.table_name)).toEqual(['inbox', 'kysely_migration', 'kysely_migration_lock', 'outbox']);
  });

  it('is idempotent: a second migration run applies nothing', async () => {
    const billing = connectDatabase<any>(billingUrl, 'billing');
    expect(await migrateToLatest(billing.db, 'billing')).toEqual([]);
    await billing.db.destroy();
  });

  it("refuses one service's role everything in another service's schema and in public", async () => {
    await asRole(identityUrl, async (client) => {
      await expect(client.query('select * from billing.outbox')).rejects.toThrow(/permission denied/);
      await expect(client.query('insert into billing.inbox (consumer, event_id) values ($1, gen_random_uuid())', ['x'])).rejects.toThrow(/permission denied/);
      await expect(client.query('create table public.sneaky (id int)')).rejects.toThrow(/permission denied/);
      await client.query('create table identity.mine (id int)');
    });
  });
});
