import { sql } from 'kysely';
import type { Logger } from 'pino';
import { fillSubject, type EventContract, type SubjectParams } from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import type { BusConnection } from './connection.ts';
import { createEnvelope } from './envelope.ts';
import { busMetrics } from './metrics.ts';
import type { OutboxCommitSignal } from '../db/outbox-signal.ts';
import type { PlatformDb } from '../db/platform-tables.ts';

/**
 * Adds an event to the outbox inside the caller's transaction. It leaves the service only if
 * that transaction commits; the relay then publishes it. Returns the event id.
 */
export async function addToOutbox<S extends TSchema>(
  tx: PlatformDb,
  contract: EventContract<S>,
  data: Static<S>,
  params?: SubjectParams,
): Promise<string> {
  const [id] = await addEventsToOutbox(tx, contract, [{ data, params }]);
  return id!;
}

/**
 * Adds one event per payload, in order, with one statement: for a change that touches many rows
 * at once (every device of an account suspended). Nothing is added if any payload is refused.
 * Returns the event ids in the payloads' order.
 */
export async function addManyToOutbox<S extends TSchema>(
  tx: PlatformDb,
  contract: EventContract<S>,
  data: readonly Static<S>[],
): Promise<string[]> {
  return addEventsToOutbox(
    tx,
    contract,
    data.map((payload) => ({ data: payload })),
  );
}

/**
 * As `addManyToOutbox`, for events whose subjects differ by their parameters (each node is told
 * on its own subject): every event names the `{node}` of its subject.
 */
export async function addEventsToOutbox<S extends TSchema>(
  tx: PlatformDb,
  contract: EventContract<S>,
  events: ReadonlyArray<{ data: Static<S>; params?: SubjectParams | undefined }>,
): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map(({ data, params }) => {
    const subject = fillSubject(contract.subject, params);
    return { subject, envelope: createEnvelope(contract, data) };
  });
  await tx
    .insertInto('outbox')
    .values(rows.map(({ subject, envelope }) => ({ id: envelope.id, subject, envelope: JSON.stringify(envelope) })))
    .execute();
  return rows.map(({ envelope }) => envelope.id);
}

type OutboxRow = { seq: string; id: string; subject: string; envelope: unknown };

export type RelayOptions = {
  db: PlatformDb;
  /** Commits of outbox rows through `db` in this process; each wakes the relay at once. */
  commits?: OutboxCommitSignal;
  schema: string;
  bus: BusConnection;
  logger: Logger;
  batchSize?: number;
  /** How often an idle relay looks for rows that no in-process commit announced (other writers). */
  idlePollMs?: number;
  publishTimeoutMs?: number;
};

/**
 * Publishes committed outbox rows to JetStream with `Nats-Msg-Id` = event id, so a row that is
 * published twice (crash between publish and delete) is dropped by the stream's duplicate window
 * and, past it, by the consumers' inboxes. Woken when this process commits outbox rows, and
 * polls while idle for rows committed elsewhere.
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private pending = false;
  private unsubscribe: (() => void) | undefined;
  private failures = 0;
  private readonly batchSize: number;
  private readonly idlePollMs: number;
  private readonly publishTimeoutMs: number;

  constructor(private readonly options: RelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.idlePollMs = options.idlePollMs ?? 500;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5000;
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.commits?.subscribe(() => this.wake());
    this.pending = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake();
    await this.loop;
    this.loop = undefined;
  }

  wake(): void {
    this.pending = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.pending = false;
      let published = 0;
      try {
        published = await this.drainOnce();
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        this.options.logger.warn({ err: error, failures: this.failures }, 'outbox relay pass failed; retrying');
        await this.sleep(Math.min(100 * 2 ** (this.failures - 1), 5000));
        continue;
      }
      if (published >= this.batchSize || this.pending) continue;
      await this.sleep(this.idlePollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
      if (this.pending || !this.running) this.wakeUp();
    });
  }

  /** One batch: lock the oldest rows, publish them all with many in flight, delete the acknowledged ones. */
  async drainOnce(): Promise<number> {
    const { bus, logger } = this.options;
    return this.options.db
      .transaction()
      .execute(async (tx) => {
        const rows = await sql<OutboxRow>`
        select seq, id, subject, envelope from outbox
        order by seq limit ${this.batchSize} for update skip locked`.execute(tx);
        if (rows.rows.length === 0) return 0;
        // Losing this commit in a crash only means publishing the rows again, which the stream's
        // duplicate window and the inboxes absorb; so it need not wait for the disk. (Set here, not
        // first: an idle pass, twice a second, then costs one statement less.)
        await sql`set local synchronous_commit = off`.execute(tx);
        const results = await Promise.allSettled(
          rows.rows.map((row) => {
            const body = typeof row.envelope === 'string' ? row.envelope : JSON.stringify(row.envelope);
            return bus.js.publish(bus.ns.subject(row.subject), body, { msgID: row.id, timeout: this.publishTimeoutMs });
          }),
        );
        const sent: string[] = [];
        const failed: Array<{ seq: string; error: string }> = [];
        results.forEach((result, i) => {
          const row = rows.rows[i]!;
          if (result.status === 'fulfilled') sent.push(row.seq);
          else
            failed.push({
              seq: row.seq,
              error: String((result.reason as Error)?.message ?? result.reason).slice(0, 500),
            });
        });
        if (sent.length > 0) {
          await sql`delete from outbox where seq = any(${sent}::bigint[])`.execute(tx);
          busMetrics.published.inc({ schema: this.options.schema }, sent.length);
        }
        if (failed.length > 0) {
          await sql`update outbox set attempts = attempts + 1, last_error = ${failed[0]!.error}
                  where seq = any(${failed.map((f) => f.seq)}::bigint[])`.execute(tx);
          logger.warn({ failed: failed.length, reason: failed[0]!.error }, 'outbox publish failed; will retry');
        }
        // The sent part commits; the failure is reported after commit so the pass backs off.
        return failed.length > 0 ? -failed.length : sent.length;
      })
      .then((n) => {
        if (n < 0) throw new Error(`${-n} outbox events not acknowledged by JetStream`);
        return n;
      });
  }

  /** Rows still waiting: for readiness reports and tests. */
  async backlog(): Promise<number> {
    const result = await sql<{ n: string }>`select count(*)::text as n from outbox`.execute(this.options.db);
    return Number(result.rows[0]?.n ?? 0);
  }
}
