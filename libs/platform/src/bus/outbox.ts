import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { fillSubject, type EventContract, type SubjectParams } from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import type { BusConnection } from './connection.ts';
import { createEnvelope } from './envelope.ts';
import { busMetrics } from './metrics.ts';
import { isNotFound } from './streams.ts';
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

/**
 * The header every relayed event carries: its outbox row's number. Rows are numbered as their
 * transactions write them, and a service changes one thing (a device) in one transaction at a
 * time, so for one thing the numbers follow the order of its changes. The stream's own order
 * does not always: the relay publishes many rows at once, and a row whose publish failed goes out
 * again after later ones went through, or a lost tail is published again after newer events.
 * A consumer to which order matters (a node's peers) compares these numbers, per thing.
 */
export const outboxSequenceHeader = 'Qw-Outbox-Seq';

/** The outbox row number a relayed message carries, or undefined for one without it. */
export function outboxSequenceOf(message: { headers?: MsgHdrs | undefined }): number | undefined {
  const value = message.headers?.get(outboxSequenceHeader);
  if (!value || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

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
  /**
   * How long a published row stays, marked published (OUTBOX_RETENTION_MS, default 5 minutes):
   * longer than the window in which a NATS server may have acknowledged an event its disk does
   * not hold yet (2.9 flushes every 2 minutes), so one a cluster-wide restart lost is still here
   * to publish again. 0 deletes a row once the stream has it (a server with `sync_interval: always`).
   */
  retentionMs?: number;
};

/** Five minutes: past a NATS 2.9 server's two-minute fsync window, with room for a slow restart. */
export const defaultOutboxRetentionMs = 5 * 60_000;

/**
 * Publishes committed outbox rows to JetStream with `Nats-Msg-Id` = event id, so a row that is
 * published twice (crash between publish and marking it) is dropped by the stream's duplicate
 * window and, past it, by the consumers' inboxes. Woken when this process commits outbox rows,
 * and polls while idle for rows committed elsewhere.
 *
 * A published row is kept for `retentionMs` with the stream and sequence JetStream stored it
 * at. After each reconnect (and at start) the relay reads those sequences back: a row whose
 * event is no longer there (a restart of every server lost the stream's unflushed tail, or the
 * stream was made again empty) is marked unpublished and goes out again.
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
  private readonly retentionMs: number;
  /** A reconnect (or the start) since the stream's copy was last checked against the kept rows. */
  private recoveryDue = true;
  private nextPruneAt = 0;
  private statusWatch: { stop?(): void } | undefined;

  constructor(private readonly options: RelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.idlePollMs = options.idlePollMs ?? 500;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5000;
    this.retentionMs = options.retentionMs ?? defaultOutboxRetentionMs;
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.commits?.subscribe(() => this.wake());
    this.watchReconnects();
    this.recoveryDue = this.retentionMs > 0;
    this.pending = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.statusWatch?.stop?.();
    this.statusWatch = undefined;
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

  /** Each reconnect may follow a restart of every server, which may have lost the streams' last events. */
  private watchReconnects(): void {
    if (this.retentionMs <= 0) return;
    // The client's iterator (a QueuedIterator) stops with stop(); its type says only AsyncIterable.
    const status = this.options.bus.nc.status() as AsyncIterable<{ type: string }> & { stop?(): void };
    this.statusWatch = status;
    void (async () => {
      for await (const event of status) {
        if (event.type === 'reconnect') {
          this.recoveryDue = true;
          this.wake();
        }
      }
    })();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.pending = false;
      let published = 0;
      try {
        if (this.recoveryDue) {
          // Cleared first: a reconnect during the check asks for another.
          this.recoveryDue = false;
          try {
            await this.recoverLost();
          } catch (error) {
            this.recoveryDue = true;
            throw error;
          }
        }
        await this.pruneWhenDue();
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

  /**
   * One batch: lock the oldest unpublished rows, publish them all with many in flight, and mark
   * the acknowledged ones published with where the stream stored them (or delete them, when
   * nothing is kept).
   */
  async drainOnce(): Promise<number> {
    const { bus, logger } = this.options;
    return this.options.db
      .transaction()
      .execute(async (tx) => {
        const rows = await sql<OutboxRow>`
        select seq, id, subject, envelope from outbox where published_at is null
        order by seq limit ${this.batchSize} for update skip locked`.execute(tx);
        if (rows.rows.length === 0) return 0;
        // Losing this commit in a crash only means publishing the rows again, which the stream's
        // duplicate window and the inboxes absorb; so it need not wait for the disk. (Set here, not
        // first: an idle pass, twice a second, then costs one statement less.)
        await sql`set local synchronous_commit = off`.execute(tx);
        const results = await Promise.allSettled(
          rows.rows.map((row) => {
            const body = typeof row.envelope === 'string' ? row.envelope : JSON.stringify(row.envelope);
            const headers = natsHeaders();
            headers.set(outboxSequenceHeader, row.seq);
            return bus.js.publish(bus.ns.subject(row.subject), body, {
              msgID: row.id,
              timeout: this.publishTimeoutMs,
              headers,
            });
          }),
        );
        const sent: string[] = [];
        const streams: string[] = [];
        const sequences: number[] = [];
        const failed: Array<{ seq: string; error: string }> = [];
        results.forEach((result, i) => {
          const row = rows.rows[i]!;
          if (result.status === 'fulfilled') {
            sent.push(row.seq);
            streams.push(result.value.stream);
            sequences.push(result.value.seq);
          } else
            failed.push({
              seq: row.seq,
              error: String((result.reason as Error)?.message ?? result.reason).slice(0, 500),
            });
        });
        if (sent.length > 0) {
          if (this.retentionMs > 0)
            await sql`update outbox set published_at = now(), stream = v.stream, stream_seq = v.stream_seq
              from unnest(${sent}::bigint[], ${streams}::text[], ${sequences}::bigint[]) as v(seq, stream, stream_seq)
              where outbox.seq = v.seq`.execute(tx);
          else await sql`delete from outbox where seq = any(${sent}::bigint[])`.execute(tx);
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

  /**
   * Reads back, stream by stream, the events of the kept rows, newest first, until one is found
   * where the stream acknowledged it: what a lossy restart loses is a stream's tail, so the rows
   * above that one are the lost ones (a sequence past the stream's last is lost outright; one
   * that now holds another event was lost and reused). Those rows are marked unpublished, and
   * the next pass publishes them again. Answers how many.
   */
  async recoverLost(): Promise<number> {
    const { bus, db, logger } = this.options;
    const streams = await sql<{ stream: string }>`
      select distinct stream from outbox where published_at is not null and stream is not null`.execute(db);
    let lost = 0;
    for (const { stream } of streams.rows) {
      const info = await bus.jsm.streams.info(stream).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      const lastSeq = info?.state.last_seq ?? 0;
      const kept = await sql<{ seq: string; id: string; stream_seq: string }>`
        select seq, id, stream_seq from outbox where stream = ${stream} and published_at is not null
        order by stream_seq desc`.execute(db);
      const missing: string[] = [];
      for (const row of kept.rows) {
        const at = Number(row.stream_seq);
        if (at <= lastSeq && (await storedId(bus, stream, at)) === row.id) break;
        missing.push(row.seq);
      }
      if (missing.length === 0) continue;
      await sql`update outbox set published_at = null, stream = null, stream_seq = null
        where seq = any(${missing}::bigint[]) and published_at is not null`.execute(db);
      logger.warn({ stream, events: missing.length }, 'events the stream lost are published again from the outbox');
      lost += missing.length;
    }
    if (lost > 0) this.wake();
    return lost;
  }

  /** Deletes published rows past the retention, every few seconds (any replica may do it). */
  private async pruneWhenDue(): Promise<void> {
    if (this.retentionMs <= 0 || Date.now() < this.nextPruneAt) return;
    this.nextPruneAt = Date.now() + Math.min(10_000, Math.max(250, this.retentionMs / 4));
    await sql`delete from outbox where published_at < now() - make_interval(secs => ${this.retentionMs / 1000})`.execute(
      this.options.db,
    );
  }

  /** Rows still waiting to be published: for readiness reports and tests. */
  async backlog(): Promise<number> {
    const result = await sql<{ n: string }>`
      select count(*)::text as n from outbox where published_at is null`.execute(this.options.db);
    return Number(result.rows[0]?.n ?? 0);
  }
}

/** The event id (Nats-Msg-Id) the stream holds at `seq`, or undefined when it holds none there. */
async function storedId(bus: BusConnection, stream: string, seq: number): Promise<string | undefined> {
  try {
    const message = await bus.jsm.streams.getMessage(stream, { seq });
    return message?.header.get('Nats-Msg-Id') || undefined;
  } catch (error) {
    if (isNotFound(error) || /no message found/i.test((error as Error)?.message ?? '')) return undefined;
    throw error;
  }
}
