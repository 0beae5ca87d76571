import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Envelope, EventContract } from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import type { BusConnection } from './connection.ts';
import { decodeEnvelope } from './envelope.ts';
import { busMetrics } from './metrics.ts';
import { ensureDeadLetterStream, isAlreadyDeclared, isNotFound } from './streams.ts';

type Outcome = 'done' | 'duplicate' | Error;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export type EventHandler<S extends TSchema> = (tx: Transaction<any>, event: Envelope<Static<S>>) => Promise<void>;
export type BatchHandler<S extends TSchema> = (tx: Transaction<any>, events: Envelope<Static<S>>[]) => Promise<void>;

export type ConsumerOptions<S extends TSchema> = {
  /** Durable name, unique per service and subject: `telemetry.device-created`. */
  name: string;
  /** The stream of the event's owner. */
  stream: string;
  contract: EventContract<S>;
  /** One event at a time, or (`handleMany`) every new event of a delivery batch at once. */
  handler?: EventHandler<S> | undefined;
  handleMany?: BatchHandler<S> | undefined;
  db: Kysely<any>;
  bus: BusConnection;
  logger: Logger;
  /** Deliveries before a failing event is dead-lettered. */
  maxDeliver?: number;
  /** Messages taken into one transaction at most. */
  batchSize?: number;
};

/** The redelivery delay after the n-th failed delivery: 250 ms doubling, capped at 30 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(250 * 2 ** Math.max(0, deliveryCount - 1), 30_000);
}

/**
 * A durable pull consumer whose handler's effects commit together with an inbox row
 * (consumer, event id). The message is acknowledged only after that commit, so a crash
 * anywhere redelivers it, and the inbox makes the second delivery a no-op.
 *
 * Messages that arrive together are handled in one transaction (one inbox insert for all); if a
 * handler fails, the batch is handled again with a savepoint per event, so only the failing
 * event is retried while the rest commit.
 */
export class IdempotentConsumer<S extends TSchema> {
  private messages: ConsumerMessages | undefined;
  private queue: JsMsg[] = [];
  private draining: Promise<void> | undefined;
  private drainActive = false;
  private reading: Promise<void> | undefined;
  private stopped = false;
  private readonly maxDeliver: number;
  private readonly batchSize: number;
  /** The durable consumer's name, also the `consumer` column of its inbox rows. */
  readonly durableName: string;
  private readonly handleMany: BatchHandler<S>;

  constructor(private readonly options: ConsumerOptions<S>) {
    const { handler, handleMany } = options;
    if (handleMany) this.handleMany = handleMany;
    else if (handler) {
      this.handleMany = async (tx, events) => {
        for (const event of events) await handler(tx, event);
      };
    } else throw new Error(`consumer ${options.name} has no handler`);
    this.maxDeliver = options.maxDeliver ?? 8;
    this.batchSize = options.batchSize ?? 200;
    this.durableName = options.bus.ns.durable(options.name);
  }

  async start(): Promise<void> {
    const { bus, stream, contract } = this.options;
    await ensureDeadLetterStream(bus);
    const config = {
      durable_name: this.durableName,
      filter_subject: bus.ns.subject(contract.subject),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 30 * 1_000_000_000,
      max_ack_pending: 2000,
      max_deliver: -1,
    };
    try {
      await bus.jsm.consumers.info(stream, this.durableName);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await bus.jsm.consumers.add(stream, config);
      } catch (addError) {
        if (!isAlreadyDeclared(addError)) throw addError;
      }
    }
    const consumer = await bus.js.consumers.get(stream, this.durableName);
    this.messages = await consumer.consume({ max_messages: this.batchSize * 2 });
    this.reading = this.read(this.messages);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.reading?.catch(() => undefined);
    await this.draining;
    // Anything read but not handled is redelivered after ack_wait; say so now to be faster.
    for (const msg of this.queue.splice(0)) msg.nak();
  }

  private async read(messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      if (this.stopped) {
        msg.nak();
        continue;
      }
      this.queue.push(msg);
      this.startDraining();
    }
  }

  /**
   * Starts handling the queue unless that is under way. It waits for `setImmediate` first, so
   * every message that came in the same read from the socket goes into the first batch (one
   * transaction) rather than the first message alone.
   */
  private startDraining(): void {
    if (this.drainActive) return;
    this.drainActive = true;
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drainQueue())
      .catch((error: unknown) => {
        // Not expected (batch failures are handled inside); never leave the queue unattended.
        this.options.logger.error({ err: error, consumer: this.durableName }, 'event drain stopped unexpectedly; restarting it');
        this.drainActive = false;
        if (this.queue.length > 0) setTimeout(() => this.startDraining(), 200);
      });
  }
  /**
   * Handles queued messages until none is left. `drainActive` is cleared in the same synchronous
   * step that sees the queue empty, so a message queued after that always starts a new drain,
   * and one queued before it is in the queue this loop looks at.
   */
  private async drainQueue(): Promise<void> {
    for (;;) {
      if (this.queue.length === 0 || this.stopped) {
        this.drainActive = false;
        return;
      }
      const batch = this.queue.splice(0, this.batchSize);
      try {
        await this.handleBatch(batch);
      } catch (error) {
        // The transaction itself failed (database down): hand every message back for later.
        this.options.logger.warn({ err: error, consumer: this.durableName, count: batch.length }, 'event batch failed; redelivering');
        for (const msg of batch) msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
        busMetrics.retried.inc({ consumer: this.durableName }, batch.length);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  private async handleBatch(batch: JsMsg[]): Promise<void> {
    const { contract, logger } = this.options;
    const valid: Array<{ msg: JsMsg; envelope: Envelope }> = [];
    for (const msg of batch) {
      const decoded = decodeEnvelope(msg.data, contract);
      if (decoded.ok) valid.push({ msg, envelope: decoded.envelope });
      else await this.deadLetter(msg, `invalid event: ${decoded.problems.join('; ')}`, decoded.eventId);
    }
    if (valid.length === 0) return;

    let outcomes: Map<JsMsg, Outcome>;
    try {
      outcomes = await this.handleTogether(valid);
    } catch (error) {
      // One handler failed and took the batch's transaction with it: go again one event at a
      // time, so only the failing event is retried.
      if (valid.length === 1) outcomes = new Map([[valid[0]!.msg, asError(error)]]);
      else outcomes = await this.handleOneByOne(valid);
    }

    for (const { msg, envelope } of valid) {
      const outcome = outcomes.get(msg);
      if (outcome === 'done') {
        msg.ack();
        busMetrics.consumed.inc({ consumer: this.durableName });
      } else if (outcome === 'duplicate') {
        msg.ack();
        busMetrics.duplicates.inc({ consumer: this.durableName });
      } else if (outcome instanceof Error) {
        const attempt = msg.info.deliveryCount;
        if (attempt >= this.maxDeliver) {
          await this.deadLetter(msg, `handler failed ${attempt} times: ${outcome.message}`, envelope.id);
        } else {
          logger.warn({ err: outcome, consumer: this.durableName, eventId: envelope.id, attempt }, 'event handler failed; will retry');
          msg.nak(redeliveryDelayMs(attempt));
          busMetrics.retried.inc({ consumer: this.durableName });
        }
      }
    }
  }

  /** The fast path: one inbox insert for the whole batch, then the new events' effects, one commit. */
  private async handleTogether(valid: Array<{ msg: JsMsg; envelope: Envelope }>): Promise<Map<JsMsg, Outcome>> {
    const { db } = this.options;
    return db.transaction().execute(async (tx) => {
      const ids = valid.map(({ envelope }) => envelope.id);
      const inserted = await sql<{ event_id: string }>`
        insert into inbox (consumer, event_id)
        select ${this.durableName}, id from unnest(${ids}::uuid[]) as id
        on conflict do nothing returning event_id`.execute(tx);
      const fresh = new Set(inserted.rows.map((row) => row.event_id));
      const outcomes = new Map<JsMsg, Outcome>();
      const events: Envelope<Static<S>>[] = [];
      for (const { msg, envelope } of valid) {
        // `delete` also makes a second copy of the same event within the batch a duplicate.
        if (fresh.delete(envelope.id)) {
          events.push(envelope as Envelope<Static<S>>);
          outcomes.set(msg, 'done');
        } else outcomes.set(msg, 'duplicate');
      }
      if (events.length > 0) await this.handleMany(tx, events);
      return outcomes;
    });
  }

  /** The careful path: each event under its own savepoint, so one failure does not undo the others. */
  private async handleOneByOne(valid: Array<{ msg: JsMsg; envelope: Envelope }>): Promise<Map<JsMsg, Outcome>> {
    const { db } = this.options;
    const outcomes = new Map<JsMsg, Outcome>();
    await db.transaction().execute(async (tx) => {
      for (const [i, { msg, envelope }] of valid.entries()) {
        const savepoint = `ev_${i}`;
        await sql.raw(`savepoint ${savepoint}`).execute(tx);
        try {
          const inserted = await sql`
            insert into inbox (consumer, event_id) values (${this.durableName}, ${envelope.id})
            on conflict do nothing returning event_id`.execute(tx);
          if (inserted.rows.length === 0) {
            outcomes.set(msg, 'duplicate');
          } else {
            await this.handleMany(tx, [envelope as Envelope<Static<S>>]);
            outcomes.set(msg, 'done');
          }
          await sql.raw(`release savepoint ${savepoint}`).execute(tx);
        } catch (error) {
          await sql.raw(`rollback to savepoint ${savepoint}`).execute(tx);
          outcomes.set(msg, asError(error));
        }
      }
    });
    return outcomes;
  }

  /** Moves a poison message to `deadletter.<consumer>` with the reason, then stops its delivery. */
  private async deadLetter(msg: JsMsg, reason: string, eventId?: string): Promise<void> {
    const { bus, logger } = this.options;
    const h = natsHeaders();
    h.set('Qw-Reason', reason.slice(0, 1000));
    h.set('Qw-Original-Subject', bus.ns.strip(msg.subject));
    if (eventId) h.set('Qw-Event-Id', eventId);
    try {
      await bus.js.publish(bus.ns.deadLetterSubject(this.durableName), msg.data, { headers: h, ...(eventId ? { msgID: `dl-${this.durableName}-${eventId}` } : {}) });
    } catch (error) {
      logger.warn({ err: error, consumer: this.durableName }, 'dead-letter publish failed; redelivering');
      msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
      return;
    }
    logger.error({ consumer: this.durableName, subject: bus.ns.strip(msg.subject), eventId, reason }, 'event dead-lettered');
    busMetrics.deadLettered.inc({ consumer: this.durableName });
    // No reason on the TERM: NATS before 2.10.4 does not parse `+TERM <reason>`, ignores the
    // acknowledgement and would redeliver the message after ack_wait, for ever. The reason
    // travels in the dead letter's headers.
    msg.term();
  }
}

/** How long an inbox remembers a handled event. Redeliveries come within minutes (ack_wait, the
 * relay's republish after a crash, the stream's 10-minute duplicate window); a week is ample. */
export const inboxRetentionMs = 7 * 24 * 3600 * 1000;

/** The smallest UUID v7 of the millisecond `ms`: every v7 id made before `ms` sorts below it. */
export function uuidV7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * Forgets inbox rows of `consumers` older than `olderThanMs`, in chunks so no delete holds locks
 * for long. Event ids are UUID v7 (time first), so the primary key finds old rows by range;
 * `processed_at` keeps rows whose id is not v7 (sorting low by chance) until they are old too.
 * Returns the number of rows deleted.
 */
export async function pruneInbox(db: Kysely<any>, consumers: readonly string[], olderThanMs = inboxRetentionMs, now = Date.now()): Promise<number> {
  const floor = uuidV7Floor(now - olderThanMs);
  const cutoff = new Date(now - olderThanMs);
  let deleted = 0;
  for (const consumer of consumers) {
    for (;;) {
      const result = await sql`
        delete from inbox where ctid = any(array(
          select ctid from inbox
          where consumer = ${consumer} and event_id < ${floor}::uuid and processed_at < ${cutoff}
          limit 10000))`.execute(db);
      const n = Number(result.numAffectedRows ?? 0n);
      deleted += n;
      if (n < 10_000) break;
    }
  }
  return deleted;
}
