import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/**
 * Events waiting for the relay (bus/outbox.ts), and those published in the last
 * OUTBOX_RETENTION_MS with where the stream stored them, so a lost tail can be published again.
 */
export interface OutboxTable {
  /** bigserial: pg returns it as a string. */
  seq: Generated<string>;
  id: string;
  subject: string;
  envelope: ColumnType<unknown, string, string>;
  created_at: Timestamp;
  attempts: Generated<number>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  published_at: NullableTimestamp;
  stream: ColumnType<string | null, string | null | undefined, string | null>;
  /** bigint: pg returns it as a string. */
  stream_seq: ColumnType<string | null, string | number | null | undefined, string | number | null>;
}

/** Events a durable consumer has handled (bus/consumer.ts), so a redelivery has no second effect. */
export interface InboxTable {
  consumer: string;
  event_id: string;
  processed_at: Timestamp;
}

/** One row per counted attempt (limits/rate-limits.ts). */
export interface RateEventsTable {
  seq: Generated<string>;
  key: string;
  at: Timestamp;
}

/** Mail that matters, sent with retries (mailer/mail-queue.ts). */
export interface MailJobsTable {
  id: string;
  kind: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  sent_at: NullableTimestamp;
  given_up_at: NullableTimestamp;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

/** Who runs a periodic task now (tasks/leased-tasks.ts): the holder renews it; an expired lease is free. */
export interface TaskLeasesTable {
  task: string;
  holder: string;
  acquired_at: Timestamp;
  expires_at: Timestamp;
}

/** One row per period a task was run in: `period` is the period's number since the epoch (its start / every). */
export interface TaskRunsTable {
  task: string;
  /** bigint: pg returns it as a string. */
  period: ColumnType<string, string | number, string | number>;
  holder: string;
  /** More than one when a run cut off by a killed holder was run again by the next one. */
  attempts: Generated<number>;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
  error: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * The tables the platform's migrations (db/platform-migrations.ts) make in every service's
 * schema. Each service's database type extends this, so the platform's code and the service's
 * own queries read them with one type.
 */
export interface PlatformTables {
  outbox: OutboxTable;
  inbox: InboxTable;
  rate_events: RateEventsTable;
  mail_jobs: MailJobsTable;
  task_leases: TaskLeasesTable;
  task_runs: TaskRunsTable;
}

/**
 * A handle the platform's functions take: a service's database or a transaction on it. Both
 * arms are needed: kysely's `Transaction<ServiceDatabase>` is not assignable to
 * `Kysely<PlatformTables>`, though `Transaction<PlatformTables>` and `Kysely<ServiceDatabase>` are.
 */
export type PlatformDb = Kysely<PlatformTables> | Transaction<PlatformTables>;

/**
 * A service's handle seen as its platform tables. Sound because `DB extends PlatformTables`;
 * TypeScript cannot see through kysely's generic methods that `Kysely<DB>` for a type
 * parameter `DB` is one, so the one cast of the platform lives here.
 */
export function platformTables<DB extends PlatformTables>(db: Kysely<DB>): Kysely<PlatformTables> {
  return db as unknown as Kysely<PlatformTables>;
}
