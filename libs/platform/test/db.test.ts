import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
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

describe('outbox commit signal', () => {
  it('fires after a commit that inserted outbox rows, and never for a rollback or other writes', async () => {
    const billing = connectDatabase<any>(billingUrl, 'billing');
    const fired: string[] = [];
    let phase = '';
    billing.outboxCommits.subscribe(() => fired.push(phase));
    const row = () => ({ id: randomUUID(), subject: 'probe.thing.created', envelope: '{}' });
    try {
      phase = 'in transaction';
      await billing.db.transaction().execute(async (tx) => {
        await tx.insertInto('outbox').values(row()).execute();
        // Not yet: the row is not visible to the relay before COMMIT.
        expect(fired).toEqual([]);
        phase = 'committed';
      });
      phase = 'rolled back';
      await expect(billing.db.transaction().execute(async (tx) => {
        await tx.insertInto('outbox').values(row()).execute();
        throw new Error('undo');
      })).rejects.toThrow('undo');
      phase = 'no outbox row';
      await billing.db.transaction().execute(async (tx) => {
        await tx.insertInto('inbox').values({ consumer: 'test', event_id: randomUUID() }).execute();
      });
      phase = 'autocommit';
      await billing.db.insertInto('outbox').values(row()).execute();
      expect(fired).toEqual(['committed', 'autocommit']);
    } finally {
      await billing.db.destroy();
    }
  });
});
