import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, eventually, type TestDatabase } from '@qw/testkit';
import { connectDatabase, migrateToLatest, sql, type Database } from '../src/db/index.ts';
import type { PlatformTables } from '../src/db/platform-tables.ts';
import { createLogger } from '../src/logger/index.ts';
import { LeasedTasks, LeasedWorker, pruneTaskRuns, type PeriodicTask } from '../src/tasks/leased-tasks.ts';

const logger = createLogger({ service: 'leases', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const everyMs = 200;
const leaseMs = 600;

let database: TestDatabase;
let url: string;
const pools: Database<PlatformTables>[] = [];

function replica() {
  const connection = connectDatabase<PlatformTables>(url, 'leases', 2);
  pools.push(connection);
  return connection;
}

beforeAll(async () => {
  database = await createTestDatabase('leases');
  url = await database.provision('leases');
  const first = replica();
  await migrateToLatest(first.db, 'leases');
});

afterAll(async () => {
  for (const pool of pools) await pool.db.destroy().catch(() => undefined);
  await database?.drop();
});

type Run = { task: string; period: string; holder: string; finished: boolean; attempts: number };

async function runsOf(task: string): Promise<Run[]> {
  const result = await sql<Run>`
    select task, period::text as period, holder, finished_at is not null as finished, attempts
    from task_runs where task = ${task} order by period`.execute(pools[0]!.db);
  return result.rows;
}

function contiguous(runs: Run[]): boolean {
  return runs.every((run, i) => i === 0 || Number(run.period) === Number(runs[i - 1]!.period) + 1);
}

describe('periodic tasks under a lease', () => {
  it('runs each period once across two replicas, and the other replica takes over when the holder is cut off', async () => {
    let concurrent = 0;
    let overlapped = false;
    const task = (name: string): PeriodicTask => ({
      name,
      everyMs,
      run: async () => {
        concurrent += 1;
        if (concurrent > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 20));
        concurrent -= 1;
      },
    });
    const a = replica();
    const b = replica();
    const first = new LeasedTasks({ db: a.db, schema: 'leases', logger, leaseMs });
    const second = new LeasedTasks({ db: b.db, schema: 'leases', logger, leaseMs });
    first.start([task('sweep')]);
    await eventually(() => first.held().includes('sweep'), 5000);
    second.start([task('sweep')]);
    await eventually(async () => (await runsOf('sweep')).length >= 5, 10_000);
    expect(second.held()).toEqual([]);

    // The holder loses Postgres (as a killed or partitioned replica would): its lease runs out
    // and the other replica takes the task, owing it the periods it missed.
    const before = (await runsOf('sweep')).length;
    await a.db.destroy();
    await eventually(() => second.held().includes('sweep'), 5000);
    await eventually(async () => (await runsOf('sweep')).length >= before + 5, 10_000);
    await second.stop();
    await first.stop();

    const runs = await runsOf('sweep');
    expect(contiguous(runs), `periods: ${runs.map((r) => r.period).join(',')}`).toBe(true);
    expect(new Set(runs.map((run) => run.holder)).size).toBe(2);
    expect(runs.at(-1)!.holder).toBe(second.holder);
    expect(overlapped).toBe(false);
  });

  it('runs again a period whose holder was cut off mid-run when the task must finish every period', async () => {
    const c = replica();
    const d = replica();
    let release: (() => void) | undefined;
    const started: string[] = [];
    const hanging = new LeasedTasks({ db: c.db, schema: 'leases', logger, leaseMs });
    hanging.start([
      {
        name: 'renew',
        everyMs,
        rule: 'each-period',
        run: () => {
          started.push(hanging.holder);
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      },
    ]);
    await eventually(() => started.length === 1, 5000);
    await c.db.destroy();
    const taker = new LeasedTasks({ db: d.db, schema: 'leases', logger, leaseMs });
    taker.start([{ name: 'renew', everyMs, rule: 'each-period', run: async () => void started.push(taker.holder) }]);
    await eventually(async () => (await runsOf('renew')).filter((run) => run.finished).length >= 3, 10_000);
    await taker.stop();
    release?.();
    await hanging.stop();

    const runs = await runsOf('renew');
    // The cut-off period was taken over (a second attempt) and finished by the new holder.
    expect(runs[0]).toMatchObject({ holder: taker.holder, finished: true, attempts: 2 });
    expect(runs.every((run) => run.finished)).toBe(true);
    expect(contiguous(runs)).toBe(true);
  });

  it('runs a one-replica worker on the lease holder only, and on the other replica once the holder is cut off', async () => {
    const e = replica();
    const f = replica();
    const running = new Set<string>();
    const part = (name: string) => ({
      name: 'projection',
      start: async () => void running.add(name),
      stop: async () => void running.delete(name),
    });
    const first = new LeasedWorker(part('first'), { db: e.db, schema: 'leases', logger, leaseMs });
    const second = new LeasedWorker(part('second'), { db: f.db, schema: 'leases', logger, leaseMs });
    await first.start();
    await second.start();
    expect([...running]).toEqual(['first']);
    await e.db.destroy();
    // The cut-off holder stops its part when it can no longer renew; the other starts its own.
    await eventually(() => running.has('second') && !running.has('first'), 5000);
    await second.stop();
    await first.stop();
    expect(running.size).toBe(0);
  });

  it('forgets periods run more than a week ago', async () => {
    const db = pools[0]!.db;
    await sql`insert into task_runs (task, period, holder, started_at, finished_at)
              values ('old', 1, 'gone', now() - interval '8 days', now() - interval '8 days'),
                     ('old', 2, 'gone', now() - interval '6 days', now() - interval '6 days')`.execute(db);
    expect(await pruneTaskRuns(db)).toBe(1);
    expect((await runsOf('old')).map((run) => run.period)).toEqual(['2']);
  });
});
