import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@qw/testkit';
import { connectDatabase, type Database } from '../src/db/index.ts';
import { parseTimestamptz } from '../src/db/timestamps.ts';

const nodePostgres = pg.types.getTypeParser(1184, 'text') as (text: string) => Date | number;

describe('timestamptz read without regular expressions', () => {
  it('gives the Date node-postgres gives, for every fraction of a second from none to six digits', () => {
    const texts: string[] = ['2026-11-30 21:04:19+00', '1999-12-31 23:59:59+00', '2000-02-29 00:00:00+00'];
    for (let digits = 1; digits <= 6; digits++)
      for (let i = 0; i < 2_000; i++) {
        const fraction = String((i * 7919) % 10 ** digits).padStart(digits, '0');
        texts.push(`2026-0${1 + (i % 9)}-1${i % 10} 0${i % 10}:${10 + (i % 50)}:0${i % 10}.${fraction}+00`);
      }
    for (const text of texts)
      expect(parseTimestamptz(text).getTime(), text).toBe((nodePostgres(text) as Date).getTime());
  });

  it("hands what is not UTC in Postgres's own form to node-postgres's parser", () => {
    for (const text of [
      '2026-11-30 21:04:19+01',
      '2026-11-30 21:04:19.5+05:30',
      '2026-11-30 21:04:19.123-08',
      '0050-01-01 00:00:00+00',
      '2026-11-30 21:04:19+00 BC',
      '12026-11-30 21:04:19+00',
      '2026-11-30T21:04:19+00',
      '2026-11-30 21:04:19.+00',
      '2026-11-30 21:04:1x+00',
      'infinity',
      '-infinity',
    ])
      expect(Number(parseTimestamptz(text)), text).toBe(Number(nodePostgres(text)));
  });
});

describe('timestamptz from Postgres', () => {
  let database: TestDatabase;
  let handle: Database<Record<string, never>>;

  beforeAll(async () => {
    database = await createTestDatabase('timestamps');
    handle = connectDatabase(await database.provision('stamps'), 'stamps', 1);
  });

  afterAll(async () => {
    await handle?.db.destroy();
    await database?.drop();
  });

  it('reads the instants Postgres holds, in UTC and in another time zone', async () => {
    const client = await handle.pool.connect();
    expect(client.getTypeParser(1184, 'text')).toBe(parseTimestamptz);
    client.release();
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      await sql`select set_config('TimeZone', ${zone}, false)`.execute(handle.db);
      const { rows } = await sql<{ at: Date; ms: string }>`
        select at, (extract(epoch from at) * 1000)::bigint::text as ms
          from (values (timestamptz '2026-11-30 21:04:19+00'), (timestamptz '2026-11-30 21:04:19.1+00'),
                       (timestamptz '2026-11-30 21:04:19.123456+00'), (timestamptz '1970-01-01 00:00:00.999999+00'),
                       (now())) as v(at)`.execute(handle.db);
      expect(rows).toHaveLength(5);
      // extract rounds a fraction past the millisecond where the Date truncates it.
      for (const row of rows)
        expect(Math.abs(row.at.getTime() - Number(row.ms)), `${zone} ${row.ms}`).toBeLessThanOrEqual(1);
    }
  });
});
