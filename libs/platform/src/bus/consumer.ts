import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import { subjectParams, wildcardSubject, type Envelope, type EventContract, type SubjectParams } from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import type { BusConnection } from './connection.ts';
import { decodeEnvelope } from './envelope.ts';
import { outboxSequenceOf } from './outbox.ts';
import { busMetrics } from './metrics.ts';
import type { PlatformDb } from '../db/platform-tables.ts';
import { declareDurable, serviceDurableConfig } from './streams.ts';

/**
 * An event as a handler receives it: the envelope, and the parameters of the subject it came on
 * (`{node}`: the node that sent a sample, which its NATS credentials guarantee).
 */
export type ReceivedEvent<T> = Envelope<T> & {
  params: SubjectParams;
  /**
   * The number of the outbox row the event left its service in (`outboxSequenceOf`): for one
   * entity, the order its changes were made in, whatever order the stream holds them in. Absent
   * for events not sent through an outbox (a node's samples).
   */
  outboxSequence?: number | undefined;
};

type Outcome = 'done' | 'duplicate' | Error;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Handles one event inside the transaction that also records it in the service's inbox. */
export type EventHandler<S extends TSchema, DB = any> = (
  tx: Transaction<DB>,
  event: ReceivedEvent<Static<S>>,
) => Promise<void>;
export type BatchHandler<S extends TSchema, DB = any> = (
  tx: Transaction<DB>,
  events: ReceivedEvent<Static<S>>[],
) => Promise<void>;

export type ConsumerOptions<S extends TSchema> = {
  /** Durable name, unique per service and subject: `telemetry.device-created`. */
  name: string;
  /** The stream of the event's owner. */
  stream: string;
  contract: EventContract<S>;
  /**
   * Instead of one event: several events of the same owner's stream, read by one durable
   * consumer on the stream's wildcard (`<owner>.>`), so they arrive in the order they were
   * published. Events of the stream not in this list are acknowledged and skipped.
   */
  events?: readonly EventContract[] | undefined;
  /** One event at a time, or (`handleMany`) every new event of a delivery batch at once. */
  handler?: EventHandler<S> | undefined;
  handleMany?: BatchHandler<S> | undefined;
  db: PlatformDb;
  bus: BusConnection;
  logger: Logger;
  /** Deliveries before a failing event is dead-lettered. */
  maxDeliver?: number;
  /** Messages taken into one transaction at most. */
  batchSize?: number;
  /**
   * Called after a transaction that handled new events committed (not for duplicates, never
   * after a rollback): to wake work that reads what the handler wrote, such as a mail queue.
   */
  afterCommit?: (() => void) | undefined;
  /**
   * A delivery batch split into `count` transactions run at once, each event going by its key
   * (`key(event)`: events of one key stay in one transaction, in stream order), so the service's
   * work on one part overlaps Postgres's on another. Only for handlers whose parts touch disjoint
   * rows (telemetry's samples, split by node).
   */
  split?: { count: number; key: (event: ReceivedEvent<unknown>) => string } | undefined;
};

/** A string's bucket among `count` (FNV-1a): the same key always lands in the same one. */
export function bucketOf(key: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/**
 * Ends a pull consumer's subscription without dropping what is on its way: the server is told to
 * stop (its pull requests then have no interest and deliver nothing more), and messages it sent
 * before it heard that still reach the reader (which handles them) until a ping's answer
 * shows none is left. Closing alone removes the subscription at once, so a message then on the
 * wire is lost to this process and the server gives it to nobody until the durable's ack wait
 * (30 s) has passed: a replica stopped for a deploy held up its stream for that long. The
 * client's `ConsumerMessages` has no drain of its own, so this reaches for the subscription it
 * reads from; without one (another client version) the close below does what it did before.
 */
async function drainPulls(messages: ConsumerMessages): Promise<void> {
  const sub = (messages as { sub?: { drain?: () => Promise<void>; isClosed?: () => boolean } }).sub;
  if (typeof sub?.drain !== 'function' || sub.isClosed?.()) return;
  await sub.drain().catch(() => undefined);
}

/** The client's notices about a reading's pulls that say nothing worth keeping. */
const routineNotices = new Set(['next', 'heartbeat', 'flow_control', 'debug']);
/** The client's notices that the durable or its stream is gone from the server (`readAgain`). */
const goneNotices = new Set(['consumer_deleted', 'consumer_not_found', 'stream_not_found']);

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
  private waiting: Promise<void> | undefined;
  private cancelWait: (() => void) | undefined;
  private stopped = false;
  /** The last few notices `watchNotices` kept. */
  private readonly notices: string[] = [];
  /** Messages the reading loop took from the client since this process started reading. */
  private readCount = 0;
  /** Why reading last started again (`readAgain`), with when. */
  private restarted: string | undefined;
  private readonly maxDeliver: number;
  private readonly batchSize: number;
  /** The durable consumer's name, also the `consumer` column of its inbox rows. */
  readonly durableName: string;
  private readonly handleMany: BatchHandler<S>;
  private readonly contracts: readonly EventContract[];
  private readonly filterSubject: string;

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
    this.contracts = options.events ?? [options.contract];
    const owners = new Set(this.contracts.map((contract) => contract.subject.split('.')[0]));
    if (options.events && owners.size !== 1) throw new Error(`consumer ${options.name}: events of one owner only`);
    this.filterSubject = options.events ? `${[...owners][0]}.>` : wildcardSubject(options.contract.subject);
  }

  /**
   * Where this consumer stands, for a test that waited in vain to say why: still waiting for its
   * stream's owner, reading, or stopped; how many messages it has read; what this process holds
   * but has not settled; the client's last notices about its pulls that are not routine and about
   * its connection's drops (`watchNotices`); why its reading last started again (`readAgain`);
   * and the inbox its pulls are answered on.
   */
  describe(): {
    state: 'waiting for the stream' | 'reading' | 'stopped';
    read: number;
    queued: number;
    handling: boolean;
    notices: string[];
    restarted?: string;
    inbox?: string;
  } {
    const state = this.stopped ? 'stopped' : this.messages ? 'reading' : 'waiting for the stream';
    // The subject this reading's pulls are answered on (the client's, not in its types).
    const inbox = (this.messages as { inbox?: unknown } | undefined)?.inbox;
    return {
      state,
      ...(typeof inbox === 'string' ? { inbox } : {}),
      read: this.readCount,
      queued: this.queue.length,
      handling: this.drainActive,
      notices: [...this.notices],
      ...(this.restarted ? { restarted: this.restarted } : {}),
    };
  }

  /**
   * Keeps the client's last few notices about this reading's pulls that are not routine (missed
   * heartbeats, a pull reset or discarded, the consumer or stream gone), with when they came, for
   * `describe`; the durable or its stream gone starts the reading again (`readAgain`).
   */
  private watchNotices(messages: ConsumerMessages): void {
    void (async () => {
      for await (const notice of messages.status()) {
        if (!routineNotices.has(notice.type)) this.note(notice.type);
        if (goneNotices.has(notice.type))
          void this.readAgain(messages, `${notice.type.replaceAll('_', ' ')} on the server`);
      }
    })().catch(() => undefined);
  }

  /**
   * The connection's own losses, for `describe`, watched from the start: messages the server sent down a
   * connection that then dropped stay unacknowledged until the ack wait (30 s) sends them again.
   */
  private watchConnection(): void {
    const connection = this.options.bus.nc.status();
    void (async () => {
      for await (const status of connection) {
        if (this.stopped) break;
        if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error')
          this.note(`connection ${status.type}`);
      }
    })().catch(() => undefined);
  }

  /** Keeps a notice for `describe`, the last 8. */
  private note(what: string): void {
    this.notices.push(`${new Date().toISOString()} ${what}`);
    if (this.notices.length > 8) this.notices.shift();
  }

  /** The contract a message's subject belongs to, with the subject's parameters. */
  private contractOf(subject: string): { contract: EventContract; params: SubjectParams } | undefined {
    for (const contract of this.contracts) {
      const params = subjectParams(contract.subject, subject);
      if (params) return { contract, params };
    }
    return undefined;
  }

  /**
   * Declares the durable consumer and starts reading. The stream belongs to the events' owner,
   * which declares it when it starts; until then this waits (retrying in the background), so
   * services may start in any order. The dead-letter stream is the service's to declare
   * (`startService`), once, before its consumers start.
   */
  async start(): Promise<void> {
    this.watchConnection();
    if (await this.attach()) return;
    this.options.logger.warn(
      { consumer: this.durableName, stream: this.options.stream },
      "the events' stream is not declared yet; waiting for its owner",
    );
    this.retryAttach();
  }

  /** Attaches in the background, 250 ms doubling to 5 s between tries, until reading or stopped. */
  private retryAttach(): void {
    this.waiting = (async () => {
      for (let delay = 250; !this.stopped; delay = Math.min(delay * 2, 5000)) {
        // stop() cuts the wait short: a service stopping never waits out a retry delay.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.cancelWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.cancelWait = undefined;
        if (this.stopped) return;
        try {
          if (await this.attach()) return;
        } catch (error) {
          this.options.logger.warn({ err: error, consumer: this.durableName }, 'consumer not started yet; retrying');
        }
      }
    })();
  }

  /**
   * Reads again from a new start when this reading can no longer deliver: its loop ended while the
   * consumer was not stopped (the client ends it on an error from the server, such as a refused
   * subscription), or the server no longer has the durable or its stream (deleted, or lost with
   * the server's store). The client itself would only ask after the durable for ever; declaring it
   * again (an idempotent create, `declareDurable`) makes it anew where it is gone, from the start
   * of the stream, and the inbox makes what was handled before a duplicate. Messages this process
   * already holds are handled and acknowledged as usual.
   */
  private async readAgain(messages: ConsumerMessages, reason: string): Promise<void> {
    if (this.stopped || this.messages !== messages) return;
    this.messages = undefined;
    // The connection closed (the process is stopping): nothing to read from, nothing to say.
    if (this.options.bus.nc.isClosed()) return;
    this.restarted = `${new Date().toISOString()} ${reason}`;
    this.options.logger.error({ consumer: this.durableName, reason }, 'event reading stopped; reading again');
    await messages.close().catch(() => undefined);
    if (this.stopped) return;
    this.retryAttach();
  }

  /**
   * True once reading; false while the stream does not exist. The durable is declared here, each
   * time reading starts (an idempotent create, see `declareDurable`); reading only looks it up.
   */
  private async attach(): Promise<boolean> {
    const { bus, stream } = this.options;
    if (!(await declareDurable(bus, stream, serviceDurableConfig(bus, this.options.name, this.filterSubject))))
      return false;
    const consumer = await bus.js.consumers.get(stream, this.durableName);
    if (this.stopped) return true;
    this.messages = await consumer.consume({ max_messages: this.batchSize * 2 });
    this.watchNotices(this.messages);
    this.reading = this.read(this.messages);
    return true;
  }

  /**
   * Stops reading and finishes what this process was given: messages already read, and those the
   * server sent before it heard of the stop, are handled and acknowledged as usual, and the
   * acknowledgements written to the server, before this returns (the server applies them a moment
   * later, from a queue of the consumer's). (Handing them back with a nak was tried: NATS 2.9 can
   * then lose one to the pull request the stop left behind on the server, redelivering it only
   * after the ack wait, 30 s.)
   * What a failing batch hands back is redelivered later as always.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelWait?.();
    await this.waiting;
    if (this.messages) await drainPulls(this.messages);
    await this.messages?.close().catch(() => undefined);
    await this.reading?.catch(() => undefined);
    while (this.drainActive || this.queue.length > 0) {
      this.startDraining();
      await this.draining;
    }
    // The acknowledgements are on their way to the server, not waiting in this process's buffer.
    const { nc } = this.options.bus;
    if (!nc.isClosed()) await nc.flush().catch(() => undefined);
  }

  private async read(messages: ConsumerMessages): Promise<void> {
    let end = 'reading ended';
    try {
      for await (const msg of messages) {
        this.readCount++;
        this.queue.push(msg);
        this.startDraining();
      }
    } catch (error) {
      end = `reading failed: ${asError(error).message}`;
    }
    await this.readAgain(messages, end);
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
        this.options.logger.error(
          { err: error, consumer: this.durableName },
          'event drain stopped unexpectedly; restarting it',
        );
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
      if (this.queue.length === 0) {
        this.drainActive = false;
        return;
      }
      const batch = this.queue.splice(0, this.batchSize);
      try {
        await this.handleBatch(batch);
      } catch (error) {
        // The transaction itself failed (database down): hand every message back for later.
        this.options.logger.warn(
          { err: error, consumer: this.durableName, count: batch.length },
          'event batch failed; redelivering',
        );
        for (const msg of batch) msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
        busMetrics.retried.inc({ consumer: this.durableName }, batch.length);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  private async handleBatch(batch: JsMsg[]): Promise<void> {
    const { logger } = this.options;
    const valid: Array<{ msg: JsMsg; envelope: ReceivedEvent<unknown> }> = [];
    for (const msg of batch) {
      const subject = this.options.bus.ns.strip(msg.subject);
      const match = this.contractOf(subject);
      if (!match && this.options.events) {
        // Another event of the stream this consumer does not follow.
        msg.ack();
        continue;
      }
      const decoded = decodeEnvelope(msg.data, match?.contract ?? this.options.contract);
      const params = match?.params;
      if (decoded.ok && params)
        valid.push({ msg, envelope: { ...decoded.envelope, params, outboxSequence: outboxSequenceOf(msg) } });
      else if (decoded.ok) await this.deadLetter(msg, `subject ${msg.subject} does not fit`, decoded.envelope.id);
      else await this.deadLetter(msg, `invalid event: ${decoded.problems.join('; ')}`, decoded.eventId);
    }
    if (valid.length === 0) return;
    const { split } = this.options;
    if (!split || split.count < 2 || valid.length < 2) return this.settle(valid);
    const parts: Array<typeof valid> = Array.from({ length: split.count }, () => []);
    for (const event of valid) parts[bucketOf(split.key(event.envelope), split.count)]!.push(event);
    // Every part settles before the next batch starts, even when one fails: a key's next events
    // never overtake its events still in a transaction.
    const settled = await Promise.allSettled(parts.filter((part) => part.length > 0).map((part) => this.settle(part)));
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
  }

  /** Handles decoded events in one transaction (one at a time if that fails), then acks or naks each. */
  private async settle(valid: Array<{ msg: JsMsg; envelope: ReceivedEvent<unknown> }>): Promise<void> {
    const { logger } = this.options;
    let outcomes: Map<JsMsg, Outcome>;
    try {
      outcomes = await this.handleTogether(valid);
    } catch (error) {
      // One handler failed and took the batch's transaction with it: go again one event at a
      // time, so only the failing event is retried.
      if (valid.length === 1) outcomes = new Map([[valid[0]!.msg, asError(error)]]);
      else outcomes = await this.handleOneByOne(valid);
    }

    if ([...outcomes.values()].includes('done')) {
      try {
        this.options.afterCommit?.();
      } catch (error) {
        logger.warn({ err: error, consumer: this.durableName }, 'after-commit hook failed');
      }
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
          logger.warn(
            { err: outcome, consumer: this.durableName, eventId: envelope.id, attempt },
            'event handler failed; will retry',
          );
          msg.nak(redeliveryDelayMs(attempt));
          busMetrics.retried.inc({ consumer: this.durableName });
        }
      }
    }
  }

  /** The fast path: one inbox insert for the whole batch, then the new events' effects, one commit. */
  private async handleTogether(
    valid: Array<{ msg: JsMsg; envelope: ReceivedEvent<unknown> }>,
  ): Promise<Map<JsMsg, Outcome>> {
    const { db } = this.options;
    return db.transaction().execute(async (tx) => {
      const ids = valid.map(({ envelope }) => envelope.id);
      const inserted = await sql<{ event_id: string }>`
        insert into inbox (consumer, event_id)
        select ${this.durableName}, id from unnest(${ids}::uuid[]) as id
        on conflict do nothing returning event_id`.execute(tx);
      const fresh = new Set(inserted.rows.map((row) => row.event_id));
      const outcomes = new Map<JsMsg, Outcome>();
      const events: ReceivedEvent<Static<S>>[] = [];
      for (const { msg, envelope } of valid) {
        // `delete` also makes a second copy of the same event within the batch a duplicate.
        if (fresh.delete(envelope.id)) {
          events.push(envelope as ReceivedEvent<Static<S>>);
          outcomes.set(msg, 'done');
        } else outcomes.set(msg, 'duplicate');
      }
      if (events.length > 0) await this.handleMany(tx, events);
      return outcomes;
    });
  }

  /** The careful path: each event under its own savepoint, so one failure does not undo the others. */
  private async handleOneByOne(
    valid: Array<{ msg: JsMsg; envelope: ReceivedEvent<unknown> }>,
  ): Promise<Map<JsMsg, Outcome>> {
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
            await this.handleMany(tx, [envelope as ReceivedEvent<Static<S>>]);
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
      await bus.js.publish(bus.ns.deadLetterSubject(this.durableName), msg.data, {
        headers: h,
        ...(eventId ? { msgID: `dl-${this.durableName}-${eventId}` } : {}),
      });
    } catch (error) {
      logger.warn({ err: error, consumer: this.durableName }, 'dead-letter publish failed; redelivering');
      msg.nak(redeliveryDelayMs(msg.info.deliveryCount));
      return;
    }
    logger.error(
      { consumer: this.durableName, subject: bus.ns.strip(msg.subject), eventId, reason },
      'event dead-lettered',
    );
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
export async function pruneInbox(
  db: PlatformDb,
  consumers: readonly string[],
  olderThanMs = inboxRetentionMs,
  now = Date.now(),
): Promise<number> {
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
