import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { databaseEnv } from '@qw/platform';
import { adminDatabaseUrl } from '@qw/testkit';
import config from '../../vitest.config.ts';

describe("the tests' Postgres (scripts/ensure-infra.sh)", () => {
  it('has room for every file running at once with five services at their pools’ default size, and more', async () => {
    const workers = Number(config.test?.maxWorkers);
    const poolMax = (databaseEnv.DATABASE_POOL_MAX as { default?: number }).default ?? Number.NaN;
    // Five services per stack, each pool full; a test's own handles and a running `make dev` beside.
    const needed = workers * 5 * poolMax + 50;
    const client = new pg.Client({ connectionString: adminDatabaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ max_connections: string }>('show max_connections');
      expect(workers).toBeGreaterThanOrEqual(2);
      expect(Number.isInteger(poolMax)).toBe(true);
      expect(Number(rows[0]!.max_connections)).toBeGreaterThanOrEqual(needed);
    } finally {
      await client.end();
    }
  });
});
