import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, Gauge, register } from 'prom-client';
import type { PlatformTables } from '../db/platform-tables.ts';

/**
 * What a task owes when its lease changes hands (docs/architecture.md, "Replicas"):
 * - `each-period`: every period ends with one finished run. A run cut off by a killed holder is
 *   run again by the next holder (the work must be done this period: renewals, key rotations).
 * - `one-at-a-time`: a run cut off by a killed holder is not repeated; the next period's run does
 *   the same work (queue drains and clean-ups, which take whatever is due when they run).
 * Under both, one replica runs the task at a time, no period is run twice, and the periods a
 * failover skipped over are run late by the new holder.
 */
export type TaskRule = 'each-period' | 'one-at-a-time';

export type PeriodicTask = {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  /** Default `one-at-a-time`. */
  rule?: TaskRule;
};

export type LeasedTasksOptions = {
  db: Kysely<PlatformTables>;
  /** The service's schema, the label of its figures on /metrics. */
  schema: string;
  logger: Logger;
  /** How long a lease lasts without renewal: a killed holder's tasks move within about this long. */
  leaseMs?: number;
};

export const defaultLeaseMs = 10_000;
/** How far back a holder runs the periods nobody ran (see `owedPeriods`). */
const owedWindowMs = 60_000;

function gauge(name: string, help: string, labelNames: string[]) {
  return (register.getSingleMetric(name) as Gauge<string> | undefined) ?? new Gauge({ name, help, labelNames });
}

const leaseHeld = gauge('qw_task_lease_held', 'Periodic task leases this process holds (1: it runs the task)', [
  'schema',
  'task',
]);
const taskRuns =
  (register.getSingleMetric('qw_task_runs_total') as Counter<string> | undefined) ??
  new Counter({
    name: 'qw_task_runs_total',
    help: 'Periods of a periodic task run here',
    labelNames: ['schema', 'task', 'outcome'],
  });

/**
 * Takes the lease named `name` for `holder`, or renews it, unless another holder's is still
 * running; answers the database's time in ms when `holder` holds it now, else undefined.
 */
async function renewLease(
  db: Kysely<PlatformTables>,
  name: string,
  holder: string,
  leaseMs: number,
): Promise<number | undefined> {
  const result = await sql<{ now_ms: number }>`
    insert into task_leases (task, holder, expires_at)
    values (${name}, ${holder}, now() + ${leaseMs} * interval '1 millisecond')
    on conflict (task) do update set
      holder = excluded.holder,
      expires_at = excluded.expires_at,
      acquired_at = case when task_leases.holder = excluded.holder then task_leases.acquired_at else now() end
    where task_leases.holder = excluded.holder or task_leases.expires_at < now()
    returning (extract(epoch from now()) * 1000)::float8 as now_ms`.execute(db);
  return result.rows[0]?.now_ms;
}

/** Who holds a lease: the host and process, and a random part so two starts in one process differ. */
export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * A service's periodic tasks, each run by whichever replica holds its lease in the service's
 * `task_leases` table. The holder renews the lease every third of its length; a holder that
 * stops renewing (killed, cut off from Postgres) loses it when it expires and another replica
 * takes it on its next check. Periods are numbered on the database's clock (`now / everyMs`) and
 * each one is claimed in `task_runs` under the lease, with the period as primary key: two
 * replicas can never both run a period, even in the instant a lease changes hands.
 */
export class LeasedTasks {
  readonly holder = newHolderId();
  private readonly loops: TaskLoop[] = [];
  private readonly leaseMs: number;

  constructor(private readonly options: LeasedTasksOptions) {
    this.leaseMs = options.leaseMs ?? defaultLeaseMs;
  }

  start(tasks: readonly PeriodicTask[]): void {
    for (const task of tasks) {
      const loop = new TaskLoop(task, this.options, this.holder, this.leaseMs);
      this.loops.push(loop);
      loop.start();
    }
  }

  /** The tasks whose lease this replica holds now. */
  held(): string[] {
    return this.loops.filter((loop) => loop.held).map((loop) => loop.task.name);
  }

  /** Stops checking, waits for runs under way, and gives the leases back so another replica takes them at once. */
  async stop(): Promise<void> {
    await Promise.all(this.loops.splice(0).map((loop) => loop.stop()));
  }
}

class TaskLoop {
  held = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private failing = false;
  private readonly checkMs: number;
  /**
   * How many periods back a holder still owes, counting the current one: those of the last
   * minute (or two leases, if longer), so neither a failover nor a stall of a loaded machine
   * (Postgres out of connections, an event loop held up) skips a period; after a longer outage the
   * task starts again from the current period.
   */
  private readonly owedPeriods: number;

  constructor(
    readonly task: PeriodicTask,
    private readonly options: LeasedTasksOptions,
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {
    this.checkMs = Math.max(50, Math.min(task.everyMs, Math.floor(leaseMs / 3)));
    this.owedPeriods = Math.ceil(Math.max(2 * leaseMs, owedWindowMs) / task.everyMs) + 1;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    await this.running;
    if (this.held) {
      await sql`delete from task_leases where task = ${this.task.name} and holder = ${this.holder}`
        .execute(this.options.db)
        .catch(() => undefined);
    }
    this.setHeld(false);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.checking = this.check().finally(() => {
        this.checking = undefined;
        this.schedule(this.checkMs);
      });
    }, ms);
  }

  private setHeld(held: boolean): void {
    this.held = held;
    leaseHeld.set({ schema: this.options.schema, task: this.task.name }, held ? 1 : 0);
  }

  /** Renews or takes the lease; as holder, starts the owed period unless a run is under way. */
  private async check(): Promise<void> {
    try {
      const now = await this.renew();
      this.setHeld(now !== undefined);
      this.failing = false;
      if (now === undefined || this.running || this.stopped) return;
      this.running = this.runOwed(now)
        .catch((error: unknown) => {
          // Postgres went away between the claim and the record: the next check finds out who holds the lease.
          this.options.logger.warn({ err: error, task: this.task.name }, 'periodic task run not recorded');
        })
        .finally(() => {
          this.running = undefined;
        });
    } catch (error) {
      // Without an answer from Postgres this replica cannot know it still holds the lease.
      this.setHeld(false);
      if (!this.failing) this.options.logger.warn({ err: error, task: this.task.name }, 'task lease check failed');
      this.failing = true;
    }
  }

  /** The database's time in ms when this replica holds the lease (taken or renewed now), else undefined. */
  private renew(): Promise<number | undefined> {
    return renewLease(this.options.db, this.task.name, this.holder, this.leaseMs);
  }

  /** Runs every period still owed, oldest first, while the lease is held. */
  private async runOwed(nowMs: number): Promise<void> {
    let now = nowMs;
    while (!this.stopped) {
      const period = await this.claimOwed(Math.floor(now / this.task.everyMs));
      if (period === undefined) return;
      await this.runPeriod(period);
      const renewed = await this.renew();
      this.setHeld(renewed !== undefined);
      if (renewed === undefined) return;
      now = renewed;
    }
  }

  /** Claims the next owed period up to `current` under the lease; undefined when none is owed (or the lease is gone). */
  private async claimOwed(current: number): Promise<string | undefined> {
    const { db } = this.options;
    const name = this.task.name;
    const last = await sql<{ period: string; holder: string; finished: boolean }>`
      select period::text as period, holder, finished_at is not null as finished
      from task_runs where task = ${name} order by period desc limit 1`.execute(db);
    const previous = last.rows[0];
    if (previous && !previous.finished && previous.holder !== this.holder && this.task.rule === 'each-period') {
      // Cut off by a holder that no longer holds the lease: run that period again here.
      const taken = await sql<{ period: string }>`
        update task_runs set holder = ${this.holder}, attempts = attempts + 1, started_at = now()
        where task = ${name} and period = ${previous.period} and finished_at is null and holder <> ${this.holder}
          and exists (select 1 from task_leases where task = ${name} and holder = ${this.holder} and expires_at > now())
        returning period::text as period`.execute(db);
      if (taken.rows[0]) return taken.rows[0].period;
    }
    const next = previous ? Math.max(Number(previous.period) + 1, current - this.owedPeriods + 1) : current;
    if (next > current) return undefined;
    const claimed = await sql<{ period: string }>`
      insert into task_runs (task, period, holder)
      select ${name}, ${next}, ${this.holder}
      where exists (select 1 from task_leases where task = ${name} and holder = ${this.holder} and expires_at > now())
      on conflict do nothing
      returning period::text as period`.execute(db);
    return claimed.rows[0]?.period;
  }

  private async runPeriod(period: string): Promise<void> {
    const { db, logger, schema } = this.options;
    let error: string | null = null;
    try {
      await this.task.run();
    } catch (failure) {
      error = String((failure as Error)?.message ?? failure).slice(0, 500);
      logger.warn({ err: failure, task: this.task.name }, 'periodic task failed');
    }
    taskRuns.inc({ schema, task: this.task.name, outcome: error ? 'failed' : 'ok' });
    await sql`update task_runs set finished_at = now(), error = ${error}
              where task = ${this.task.name} and period = ${period} and holder = ${this.holder}`.execute(db);
  }
}

export type LeasedWorkerPart = { name: string; start(): Promise<void>; stop(): Promise<void> };

/**
 * A long-running part that one replica runs at a time (analytics' projection, whose counts depend
 * on the order events are applied in): started on the replica that takes its lease (named
 * `worker:<name>` in `task_leases`), stopped when that replica loses it, so another replica's
 * copy starts within about the lease of a holder's death. The lease is renewed while the part
 * starts or stops, however long that takes.
 */
export class LeasedWorker {
  readonly holder = newHolderId();
  private held = false;
  private started = false;
  private stopped = false;
  private failing = false;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private changing: Promise<void> | undefined;
  private readonly leaseMs: number;
  private readonly leaseName: string;

  constructor(
    private readonly part: LeasedWorkerPart,
    private readonly options: LeasedTasksOptions,
  ) {
    this.leaseMs = options.leaseMs ?? defaultLeaseMs;
    this.leaseName = `worker:${part.name}`;
  }

  get running(): boolean {
    return this.started;
  }

  /**
   * Takes the lease if it is free and, then, starts the part before answering (a lone replica
   * starts as it always did); checks again every third of the lease from then on.
   */
  async start(): Promise<void> {
    this.checking = this.check().finally(() => {
      this.checking = undefined;
      this.schedule(Math.floor(this.leaseMs / 3));
    });
    await this.checking;
    await this.changing;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    await this.changing;
    if (this.started) await this.part.stop();
    this.started = false;
    if (this.held)
      await sql`delete from task_leases where task = ${this.leaseName} and holder = ${this.holder}`
        .execute(this.options.db)
        .catch(() => undefined);
    this.setHeld(false);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.checking = this.check().finally(() => {
        this.checking = undefined;
        this.schedule(Math.floor(this.leaseMs / 3));
      });
    }, ms);
  }

  private setHeld(held: boolean): void {
    this.held = held;
    leaseHeld.set({ schema: this.options.schema, task: this.leaseName }, held ? 1 : 0);
  }

  private async check(): Promise<void> {
    let held = false;
    try {
      held = (await renewLease(this.options.db, this.leaseName, this.holder, this.leaseMs)) !== undefined;
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.options.logger.warn({ err: error, worker: this.part.name }, 'worker lease check failed');
      this.failing = true;
    }
    this.setHeld(held);
    if (this.changing || this.stopped || held === this.started) return;
    const { logger } = this.options;
    this.changing = (
      held
        ? this.part.start().then(
            () => {
              this.started = true;
              logger.info({ worker: this.part.name }, 'worker started on this replica (lease taken)');
            },
            async (error: unknown) => {
              logger.warn({ err: error, worker: this.part.name }, 'worker did not start; retrying');
              await this.part.stop().catch(() => undefined);
            },
          )
        : this.part
            .stop()
            .then(
              () => logger.info({ worker: this.part.name }, 'worker stopped on this replica (lease lost)'),
              (error: unknown) => logger.warn({ err: error, worker: this.part.name }, 'worker stop failed'),
            )
            .finally(() => {
              this.started = false;
            })
    ).finally(() => {
      this.changing = undefined;
    });
  }
}

/** How long `task_runs` keeps a period's row: a week of history, to read when a task last ran. */
export const taskRunsRetentionMs = 7 * 24 * 3600_000;

/** Forgets the periods run before the retention; answers how many rows went. */
export async function pruneTaskRuns(db: Kysely<PlatformTables>): Promise<number> {
  const result =
    await sql`delete from task_runs where started_at < now() - ${taskRunsRetentionMs} * interval '1 millisecond'`.execute(
      db,
    );
  return Number(result.numAffectedRows ?? 0);
}
