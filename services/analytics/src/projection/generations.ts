import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import {
  AppError,
  analyticsDurableName,
  analyticsGenerationLimit,
  type ProjectionGeneration,
  type ProjectionStatus,
} from '@qw/contracts';
import { type BusConnection, IdempotentConsumer, isNotFound, type ReceivedEvent } from '@qw/platform/bus';
import { startPeriodicTask, type Worker } from '@qw/platform';
import type { TSchema } from 'typebox';
import type { AnalyticsDatabase } from '../database.ts';
import * as repo from './generations.repository.ts';
import type { GenerationRow } from './generations.repository.ts';
import { ProjectionBatch } from './projection-batch.ts';
import type { ProjectionEvent } from './rows.ts';
import { sources, toProjectionEvent } from './sources.ts';
import { PostgresProjectionStore, writeChanges } from './store.ts';
import { createGenerationTables, currentDefinition, dropGenerationTables } from './tables.ts';

type Db = Kysely<AnalyticsDatabase>;
export type ProjectionOptions = {
  db: Db;
  bus: BusConnection;
  logger: Logger;
  /** How often a rebuild is checked for having caught up, and retired generations cleared. */
  checkEveryMs?: number;
  /** How long a retired generation's tables stay after the switch (reads under way finish). */
  retiredGraceMs?: number;
  /** The definition the code computes (tests raise it to prove a rebuild). */
  definition?: number;
};

/** Applies one delivery batch of events to a generation's tables, in the consumer's transaction. */
export async function projectEvents(
  tx: Transaction<unknown> | Kysely<unknown>,
  generation: number,
  events: readonly ReceivedEvent<unknown>[],
): Promise<void> {
  const projected = events.map(toProjectionEvent).filter((event): event is ProjectionEvent => event !== null);
  if (projected.length === 0) return;
  const batch = new ProjectionBatch(new PostgresProjectionStore(tx, generation));
  await batch.prefetch(projected);
  for (const event of projected) await batch.apply(event);
  await writeChanges(tx, generation, batch.changes());
}

/**
 * The projection's generations: the live one the figures are read from, and at most one being
 * rebuilt from the streams' history beside it. A rebuild starts on its own when the code's
 * definition is newer than the live one's, or when an operator asks; once every consumer of the
 * new generation has read all there was, it becomes live in one transaction and the old one is
 * retired (its consumers stop, and its tables are dropped after a grace period).
 */
export class Projections implements Worker {
  readonly name = 'projections';
  /** One replica projects at a time: the counts depend on the order events are applied in. */
  readonly oneReplica = true;
  private running = false;
  private readonly consumers = new Map<number, IdempotentConsumer<TSchema>[]>();
  private readonly starting = new Set<number>();
  private stopTask: (() => Promise<void>) | undefined;
  private readonly definition: number;

  constructor(private readonly options: ProjectionOptions) {
    this.definition = options.definition ?? currentDefinition;
  }

  /** The durables of the generations being read (the live one, and one being rebuilt). */
  durables(): Array<{ stream: string; durable: string }> {
    const { bus } = this.options;
    return [...this.consumers.values()].flatMap((running) =>
      running.map((consumer, i) => ({ stream: bus.ns.stream(sources[i]!.owner), durable: consumer.durableName })),
    );
  }

  async start(): Promise<void> {
    await this.locked(async (tx) => {
      const current = await this.activeGenerations(tx);
      const live = current.find((g) => g.status === 'live');
      const building = current.find((g) => g.status === 'building');
      if (!live) {
        // The very first projection: nothing to compare with, so it is live while it fills.
        await this.createGeneration(tx, 'live');
      } else if (live.definition < this.definition && !building) {
        await this.createGeneration(tx, 'building');
      }
      // The tables this code writes, in the generations it goes on projecting while a rebuild
      // catches up (an older definition's lack some; idempotent).
      for (const generation of current)
        await createGenerationTables(tx as unknown as Kysely<unknown>, generation.generation);
    });
    for (const generation of await this.activeGenerations(this.options.db)) await this.startConsumers(generation);
    this.stopTask = startPeriodicTask(
      { name: 'projection-switch', everyMs: this.options.checkEveryMs ?? 2000, run: () => this.tick() },
      this.options.logger,
    );
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.stopTask?.();
    for (const running of this.consumers.values()) for (const consumer of running) await consumer.stop();
    this.consumers.clear();
  }

  /** The generation the figures are read from, as `db` sees it (a replica's snapshot names only tables it already has). */
  async liveGeneration(db: Kysely<AnalyticsDatabase> = this.options.db): Promise<number> {
    return (await this.live(db)).generation;
  }

  /** The live generation and the definition it was built by. */
  async live(db: Kysely<AnalyticsDatabase> = this.options.db): Promise<{ generation: number; definition: number }> {
    const live = await repo.findLive(db);
    if (live === undefined) throw new AppError('unavailable', 'The figures are not ready yet. Try again in a moment.');
    return live;
  }

  async status(): Promise<ProjectionStatus> {
    const rows = await this.activeGenerations(this.options.db);
    const describe = async (row: GenerationRow | undefined): Promise<ProjectionGeneration | null> =>
      row
        ? {
            generation: row.generation,
            definition: row.definition,
            status: row.status,
            started_at: new Date(row.started_at).toISOString(),
            live_since: row.live_since ? new Date(row.live_since).toISOString() : null,
            pending_events: await this.pendingEvents(row.generation),
          }
        : null;
    return {
      live: await describe(rows.find((row) => row.status === 'live')),
      building: await describe(rows.find((row) => row.status === 'building')),
    };
  }

  /** An operator's rebuild of the current definition beside the live generation. */
  async rebuild(): Promise<ProjectionStatus> {
    const generation = await this.locked(async (tx) => {
      const current = await this.activeGenerations(tx);
      if (current.some((g) => g.status === 'building'))
        throw new AppError('conflict', 'A rebuild is already under way. Wait for it to finish.');
      const made = await this.createGeneration(tx, 'building');
      // The bus lists each generation's durables by name (NATS matches whole tokens): past the
      // last one the server would refuse its consumers, so say so and keep nothing of it.
      if (made > analyticsGenerationLimit)
        throw new AppError(
          'conflict',
          `Analytics has used the ${analyticsGenerationLimit} generations the bus lets it read: raise analyticsGenerationLimit in libs/contracts/src/bus-access.ts and regenerate the NATS configuration.`,
        );
      return made;
    });
    // The replica that projects starts its consumers now; asked on another, the projecting
    // replica's next tick starts them.
    if (this.running) await this.startConsumers({ generation });
    return this.status();
  }

  /**
   * Events the generation's consumers have not yet handled (delivered and acknowledged). A stream
   * that does not exist (its owner never started) has nothing to read; a consumer not made yet on
   * a stream that exists has everything still to read.
   */
  async pendingEvents(generation: number): Promise<number> {
    const { bus } = this.options;
    let pending = 0;
    for (const source of sources) {
      const stream = bus.ns.stream(source.owner);
      try {
        const info = await bus.jsm.consumers.info(
          stream,
          bus.ns.durable(analyticsDurableName(generation, source.name)),
        );
        pending += info.num_pending + info.num_ack_pending;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        try {
          pending += (await bus.jsm.streams.info(stream)).state.messages;
        } catch (streamError) {
          if (!isNotFound(streamError)) throw streamError;
        }
      }
    }
    return pending;
  }

  /** Switches a caught-up rebuild live, and clears retired generations past their grace. */
  async tick(): Promise<void> {
    const rows = await this.activeGenerations(this.options.db);
    const building = rows.find((row) => row.status === 'building');
    // A rebuild an operator asked of another replica.
    if (building && !this.consumers.has(building.generation)) await this.startConsumers(building);
    if (building && this.consumers.has(building.generation) && (await this.pendingEvents(building.generation)) === 0)
      await this.switchTo(building.generation);
    await this.dropRetired();
  }

  private async switchTo(generation: number): Promise<void> {
    const retired = await this.locked(async (tx) => {
      return repo.promoteGeneration(tx, generation);
    });
    this.options.logger.info({ generation, retired }, 'analytics projection switched to a rebuilt generation');
    if (retired !== undefined) await this.stopConsumers(retired);
  }

  private async dropRetired(): Promise<void> {
    const grace = this.options.retiredGraceMs ?? 60_000;
    const due = await repo.listRetiredBefore(this.options.db, new Date(Date.now() - grace));
    for (const generation of due) {
      await this.stopConsumers(generation);
      await dropGenerationTables(this.options.db as Kysely<unknown>, generation);
      for (const source of sources) {
        const durable = this.options.bus.ns.durable(analyticsDurableName(generation, source.name));
        await repo.deleteInboxRowsOf(this.options.db, durable);
      }
      await repo.markDropped(this.options.db, generation);
      this.options.logger.info({ generation }, 'retired analytics generation dropped');
    }
  }

  private async startConsumers(row: Pick<GenerationRow, 'generation'>): Promise<void> {
    if (this.consumers.has(row.generation) || this.starting.has(row.generation)) return;
    this.starting.add(row.generation);
    const { bus, db, logger } = this.options;
    const running: IdempotentConsumer<TSchema>[] = [];
    for (const source of sources) {
      const consumer = new IdempotentConsumer({
        name: analyticsDurableName(row.generation, source.name),
        stream: bus.ns.stream(source.owner),
        contract: source.contract,
        events: source.events,
        db,
        bus,
        logger,
        batchSize: 500,
        handleMany: (tx, events) => projectEvents(tx, row.generation, events),
      });
      await consumer.start();
      running.push(consumer);
    }
    // Only now may the switch look at it: every consumer exists and counts what it has to read.
    this.consumers.set(row.generation, running);
    this.starting.delete(row.generation);
  }

  /**
   * Stops reading for a generation. Its durable consumers are not deleted (analytics may not
   * delete consumers of streams it only reads): they are given an inactivity threshold, so the
   * server removes them once nobody reads them.
   */
  private async stopConsumers(generation: number): Promise<void> {
    const running = this.consumers.get(generation);
    this.consumers.delete(generation);
    for (const consumer of running ?? []) await consumer.stop();
    const { bus } = this.options;
    for (const source of sources) {
      const stream = bus.ns.stream(source.owner);
      const durable = bus.ns.durable(analyticsDurableName(generation, source.name));
      try {
        const idleMs = Math.max(1000, this.options.retiredGraceMs ?? 60_000);
        await bus.jsm.consumers.update(stream, durable, { inactive_threshold: idleMs * 1_000_000 });
      } catch (error) {
        if (!isNotFound(error))
          this.options.logger.warn({ err: error, consumer: durable }, 'retired consumer left as it was');
      }
    }
  }

  private async createGeneration(tx: Transaction<AnalyticsDatabase>, status: 'live' | 'building'): Promise<number> {
    const generation = await repo.insertGeneration(tx, { definition: this.definition, status });
    await createGenerationTables(tx as unknown as Kysely<unknown>, generation);
    this.options.logger.info({ generation, definition: this.definition, status }, 'analytics generation created');
    return generation;
  }

  private async activeGenerations(db: Kysely<AnalyticsDatabase>): Promise<GenerationRow[]> {
    return repo.listActiveGenerations(db);
  }

  /** One change of generations at a time, across replicas. */
  private locked<T>(work: (tx: Transaction<AnalyticsDatabase>) => Promise<T>): Promise<T> {
    return this.options.db.transaction().execute(async (tx) => {
      await repo.lockGenerations(tx);
      return work(tx);
    });
  }
}
