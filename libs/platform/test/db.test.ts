import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import { connectDatabase, type Database, migrateToLatest, type PlatformDb } from '../src/db/index.ts';
import {
  giveBackRateEvents,
  longestRetryAfter,
  recordRateEvent,
  retryAfterSeconds,
  takeRateLimited,
  takeRateLimits,
  tryTakeRate,
} from '../src/limits/rate-limits.ts';

let database: TestDatabase;
let billingUrl: string;
let identityUrl: string;
/** Billing's schema, migrated: where the rate-limit tests count. */
let billing: Database<any>;

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
  billing = connectDatabase<any>(billingUrl, 'billing');
  await migrateToLatest(billing.db, 'billing');
});

afterAll(async () => {
  await billing?.db.destroy();
  await database?.drop();
});

describe('schema per service', () => {
  it('migrates the platform tables into the service schema and records them there', async () => {
    const tables = await asRole(billingUrl, (c) =>
      c.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = 'billing' order by table_name`,
      ),
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      'inbox',
      'kysely_migration',
      'kysely_migration_lock',
      'mail_jobs',
      'outbox',
      'rate_events',
      'task_leases',
      'task_runs',
    ]);
  });

  it('is idempotent: a second migration run applies nothing', async () => {
    expect(await migrateToLatest(billing.db, 'billing')).toEqual([]);
  });

  it("refuses one service's role everything in another service's schema and in public", async () => {
    await asRole(identityUrl, async (client) => {
      await expect(client.query('select * from billing.outbox')).rejects.toThrow(/permission denied/);
      await expect(
        client.query('insert into billing.inbox (consumer, event_id) values ($1, gen_random_uuid())', ['x']),
      ).rejects.toThrow(/permission denied/);
      await expect(client.query('create table public.sneaky (id int)')).rejects.toThrow(/permission denied/);
      await client.query('create table identity.mine (id int)');
    });
  });
});

describe('rate limits', () => {
  it('lets a key act up to its limit, then answers the wait until the oldest event leaves the window', async () => {
    const limit = { max: 3, windowSeconds: 600 };
    const start = new Date('2026-11-23T10:00:00Z');
    const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    for (const second of [0, 60, 120]) {
      expect(await retryAfterSeconds(billing.db, 'probe:a', limit, at(second))).toBe(0);
      await recordRateEvent(billing.db, 'probe:a', at(second));
    }
    // The fourth within ten minutes waits until the first (at 0 s) is ten minutes old.
    expect(await retryAfterSeconds(billing.db, 'probe:a', limit, at(150))).toBe(450);
    expect(await retryAfterSeconds(billing.db, 'probe:b', limit, at(150))).toBe(0);
    expect(await retryAfterSeconds(billing.db, 'probe:a', limit, at(600))).toBe(0);
  });

  it('refuses with rate_limited and records nothing when any key is at its limit', async () => {
    const one = { max: 1, windowSeconds: 3600 };
    await takeRateLimited(billing.db, [{ key: 'probe:c', limit: one }], (wait) => `wait ${wait}`);
    await expect(
      takeRateLimited(
        billing.db,
        [
          { key: 'probe:d', limit: one },
          { key: 'probe:c', limit: one },
        ],
        (wait) => `wait ${wait}`,
      ),
    ).rejects.toMatchObject({ code: 'rate_limited', message: 'wait 60 minutes' });
    expect(await retryAfterSeconds(billing.db, 'probe:d', one)).toBe(0);
  });

  it('reads the longest wait of all keys without recording', async () => {
    const short = { max: 1, windowSeconds: 60 };
    const long = { max: 1, windowSeconds: 3600 };
    const checks = [
      { key: 'probe:e', limit: short },
      { key: 'probe:f', limit: long },
    ];
    expect(await longestRetryAfter(billing.db, checks)).toBe(0);
    expect(await longestRetryAfter(billing.db, checks)).toBe(0);
    await recordRateEvent(billing.db, 'probe:e');
    expect(await longestRetryAfter(billing.db, checks)).toBeLessThanOrEqual(60);
    await recordRateEvent(billing.db, 'probe:f');
    expect(await longestRetryAfter(billing.db, checks)).toBeGreaterThan(3500);
  });

  it('refuses in the words of the first group at its limit, records one event per key, and can give a take back', async () => {
    const one = { max: 1, windowSeconds: 3600 };
    const two = { max: 2, windowSeconds: 60 };
    const groups = [
      // Two limits on one key: one event is recorded for it, not two.
      {
        checks: [
          { key: 'probe:g', limit: two },
          { key: 'probe:g', limit: one },
        ],
        message: (w: string) => `g ${w}`,
      },
      { checks: [{ key: 'probe:h', limit: two }], message: (w: string) => `h ${w}` },
    ];
    const taken = await takeRateLimits(billing.db, groups);
    expect(taken.seqs).toHaveLength(2);
    await expect(takeRateLimits(billing.db, groups)).rejects.toMatchObject({
      code: 'rate_limited',
      message: 'g 60 minutes',
    });
    expect(await tryTakeRate(billing.db, [{ key: 'probe:g', limit: one }])).toBeNull();
    // A take that turns out not to count (a right password, for limits of failures) is given back.
    await giveBackRateEvents(billing.db, taken);
    expect(
      await longestRetryAfter(billing.db, [
        { key: 'probe:g', limit: one },
        { key: 'probe:h', limit: one },
      ]),
    ).toBe(0);
    for (const expected of [true, true, false])
      expect((await tryTakeRate(billing.db, [{ key: 'probe:h', limit: two }])) !== null).toBe(expected);
    await expect(takeRateLimits(billing.db, groups)).rejects.toMatchObject({ message: 'h a minute' });
  });
});

describe('rate limits under parallel requests', () => {
  const count = async (db: PlatformDb, key: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from rate_events where key = ${key}`.execute(db)).rows[0]!.n;
  const allowed = (outcomes: PromiseSettledResult<unknown>[]) =>
    outcomes.filter((o) => o.status === 'fulfilled').length;

  it('lets exactly `max` of many parallel attempts through and refuses the rest with rate_limited', async () => {
    const limit = { max: 3, windowSeconds: 600 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        takeRateLimited(billing.db, [{ key: 'race:a', limit }], (wait) => `wait ${wait}`),
      ),
    );
    expect(allowed(outcomes)).toBe(3);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'rate_limited' });
    expect(await count(billing.db, 'race:a')).toBe(3);
  });

  it('counts inside the caller’s transaction too: parallel transactions take `max` in all', async () => {
    const limit = { max: 2, windowSeconds: 600 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        billing.db.transaction().execute(async (tx) => {
          await takeRateLimited(tx, [{ key: 'race:b', limit }], (wait) => `wait ${wait}`);
          // Work after the count, before the commit: others wait for it instead of counting past it.
          await sql`select pg_sleep(0.02)`.execute(tx);
        }),
      ),
    );
    expect(allowed(outcomes)).toBe(2);
    expect(await count(billing.db, 'race:b')).toBe(2);
  });

  it('a failure-counted take waits for the attempts in flight: given back, the one beside them goes through', async () => {
    const limit = { max: 2, windowSeconds: 600 };
    const key = [{ key: 'race:c', limit }];
    const message = (wait: string) => `wait ${wait}`;
    const inFlight = [await takeRateLimited(billing.db, key, message), await takeRateLimited(billing.db, key, message)];
    const beside = takeRateLimited(billing.db, key, message, { settleMs: 2_000 });
    // The two in flight turn out right (a right password): their counts go back while the third waits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const taken of inFlight) await giveBackRateEvents(billing.db, taken);
    await expect(beside).resolves.toMatchObject({ seqs: [expect.any(String)] });
    // Failures that stay counted refuse it once the allowance is over.
    await takeRateLimited(billing.db, key, message);
    await expect(takeRateLimited(billing.db, key, message, { settleMs: 300 })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect(await count(billing.db, 'race:c')).toBe(2);
  });
});

describe('outbox commit signal', () => {
  it('fires after a commit that inserted outbox rows, and never for a rollback or other writes', async () => {
    const fired: string[] = [];
    let phase = '';
    billing.outboxCommits.subscribe(() => fired.push(phase));
    const row = () => ({ id: randomUUID(), subject: 'probe.thing.created', envelope: '{}' });
    phase = 'in transaction';
    await billing.db.transaction().execute(async (tx) => {
      await tx.insertInto('outbox').values(row()).execute();
      // Not yet: the row is not visible to the relay before COMMIT.
      expect(fired).toEqual([]);
      phase = 'committed';
    });
    phase = 'rolled back';
    await expect(
      billing.db.transaction().execute(async (tx) => {
        await tx.insertInto('outbox').values(row()).execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    phase = 'no outbox row';
    await billing.db.transaction().execute(async (tx) => {
      await tx.insertInto('inbox').values({ consumer: 'test', event_id: randomUUID() }).execute();
    });
    phase = 'autocommit';
    await billing.db.insertInto('outbox').values(row()).execute();
    expect(fired).toEqual(['committed', 'autocommit']);
  });
});
