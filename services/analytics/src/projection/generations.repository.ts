import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { AnalyticsDatabase, GenerationsTable } from '../database.ts';

type Db = Kysely<AnalyticsDatabase>;

export type GenerationRow = Selectable<GenerationsTable>;

/** The registry of projection generations: queries only (generations.ts decides when). */
export async function findLiveGeneration(db: Db): Promise<number | undefined> {
  const live = await db.selectFrom('generations').select('generation').where('status', '=', 'live').executeTakeFirst();
  return live?.generation;
}

/** The live generation with the definition it was built by. */
export async function findLive(db: Db): Promise<{ generation: number; definition: number } | undefined> {
  return db
    .selectFrom('generations')
    .select(['generation', 'definition'])
    .where('status', '=', 'live')
    .executeTakeFirst();
}

export async function listActiveGenerations(db: Db): Promise<GenerationRow[]> {
  return db
    .selectFrom('generations')
    .selectAll()
    .where('status', 'in', ['live', 'building'])
    .orderBy('generation')
    .execute();
}

export async function insertGeneration(
  db: Db,
  generation: { definition: number; status: 'live' | 'building' },
): Promise<number> {
  const now = new Date();
  const row = await db
    .insertInto('generations')
    .values({
      definition: generation.definition,
      status: generation.status,
      started_at: now,
      live_since: generation.status === 'live' ? now : null,
    })
    .returning('generation')
    .executeTakeFirstOrThrow();
  return row.generation;
}

/** The building generation goes live and the live one retires; answers the retired one, if any. */
export async function promoteGeneration(db: Db, generation: number): Promise<number | undefined> {
  const old = await db
    .updateTable('generations')
    .set({ status: 'retired', retired_at: new Date() })
    .where('status', '=', 'live')
    .returning('generation')
    .executeTakeFirst();
  await db
    .updateTable('generations')
    .set({ status: 'live', live_since: new Date() })
    .where('generation', '=', generation)
    .where('status', '=', 'building')
    .execute();
  return old?.generation;
}

/** Retired generations whose tables are still there, retired before `before`. */
export async function listRetiredBefore(db: Db, before: Date): Promise<number[]> {
  const rows = await db
    .selectFrom('generations')
    .select('generation')
    .where('status', '=', 'retired')
    .where('dropped_at', 'is', null)
    .where('retired_at', '<', before)
    .execute();
  return rows.map((row) => row.generation);
}

export async function markDropped(db: Db, generation: number): Promise<void> {
  await db.updateTable('generations').set({ dropped_at: new Date() }).where('generation', '=', generation).execute();
}

/** Forgets a durable's inbox rows, `batch` at a time so no delete holds locks for long. */
export async function deleteInboxRowsOf(db: Db, durable: string, batch = 20_000): Promise<void> {
  for (;;) {
    const result = await sql`delete from inbox where ctid = any(array(
        select ctid from inbox where consumer = ${durable} limit ${batch}))`.execute(db);
    if (Number(result.numAffectedRows ?? 0n) < batch) break;
  }
}

/** One change of generations at a time, across replicas (held until the transaction ends). */
export async function lockGenerations(tx: Transaction<AnalyticsDatabase>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('analytics.generations'))`.execute(tx);
}
