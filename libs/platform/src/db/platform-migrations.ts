import { sql, type Kysely, type Migration } from 'kysely';

/** The first version's wake-up: NOTIFY `<schema>_outbox` at the commit of outbox rows. */
async function createOutboxNotifyTrigger(db: Kysely<any>): Promise<void> {
  await sql`
    create function outbox_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify(TG_TABLE_SCHEMA || '_outbox', '');
      return null;
    end $$`.execute(db);
  await sql`create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify()`.execute(
    db,
  );
}

/**
 * The bus tables every service schema carries. Named to sort before any service migration
 * (those are date-named from 2026 on).
 */
export const platformMigrations: Record<string, Migration> = {
  '0000_platform_outbox_inbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('outbox')
        .addColumn('seq', 'bigserial', (c) => c.primaryKey())
        .addColumn('id', 'uuid', (c) => c.notNull().unique())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('envelope', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .execute();
      await db.schema
        .createTable('inbox')
        .addColumn('consumer', 'text', (c) => c.notNull())
        .addColumn('event_id', 'uuid', (c) => c.notNull())
        .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('inbox_pk', ['consumer', 'event_id'])
        .execute();
      // The relay listens on this channel; NOTIFY is delivered only when the inserting
      // transaction commits, so a rolled-back change never wakes it.
      await createOutboxNotifyTrigger(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('inbox').execute();
      await db.schema.dropTable('outbox').execute();
      await sql`drop function outbox_notify()`.execute(db);
    },
  },
  // Postgres serializes the commits of transactions that NOTIFY, which cost the outbox about 40%
  // of its commit rate; the relay is now woken in process when outbox rows commit (see
  // db/outbox-signal.ts) and polls for rows written by other processes.
  '0001_platform_outbox_without_notify': {
    async up(db: Kysely<any>) {
      await sql`drop trigger if exists outbox_notify on outbox`.execute(db);
      await sql`drop function if exists outbox_notify()`.execute(db);
    },
    async down(db: Kysely<any>) {
      await createOutboxNotifyTrigger(db);
    },
  },
  // Every service limits something (sign-ups, checkouts, devices): one table and one mechanism
  // (limits/rate-limits.ts). Identity had its own table of the same shape first.
  '0002_platform_rate_events': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rate_events')
        .ifNotExists()
        .addColumn('seq', 'bigserial', (c) => c.primaryKey())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('rate_events_key_at')
        .ifNotExists()
        .on('rate_events')
        .columns(['key', 'at'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('rate_events').ifExists().execute();
    },
  },
  // Mail that matters goes out from a queue with retries (mailer/mail-queue.ts), not after commit.
  '0003_platform_mail_jobs': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('mail_jobs')
        .addColumn('id', 'uuid', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('sent_at', 'timestamptz')
        .addColumn('given_up_at', 'timestamptz')
        .addColumn('last_error', 'text')
        .execute();
      await sql`create index mail_jobs_due on mail_jobs (next_attempt_at) where sent_at is null and given_up_at is null`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('mail_jobs').execute();
    },
  },
  // A job may wait for its recipient (an address not confirmed yet) for a while, counted from here.
  '0004_platform_mail_jobs_created_at': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('mail_jobs')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('mail_jobs').dropColumn('created_at').execute();
    },
  },
  // Periodic work runs on the replica that holds its task's lease (tasks/leased-tasks.ts); each
  // period a task runs is one row of task_runs, claimed under the lease, so two replicas never
  // both run a period and a replica that takes over can see which periods are still owed.
  '0005_platform_task_leases': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('task_leases')
        .addColumn('task', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('acquired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('task_runs')
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('period', 'bigint', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('finished_at', 'timestamptz')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('task_runs_pk', ['task', 'period'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('task_runs').execute();
      await db.schema.dropTable('task_leases').execute();
    },
  },
  // An event stays in the outbox, marked published with where JetStream stored it, for
  // OUTBOX_RETENTION_MS after the stream acknowledged it: a NATS 2.9 server acknowledges before
  // its disk has the message, so a cluster-wide power cut can lose the stream's last events; the
  // relay finds them missing (bus/outbox.ts, `recoverLost`) and publishes them again.
  '0006_platform_outbox_retention': {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('outbox')
        .addColumn('published_at', 'timestamptz')
        .addColumn('stream', 'text')
        .addColumn('stream_seq', 'bigint')
        .execute();
      await sql`create index outbox_unpublished on outbox (seq) where published_at is null`.execute(db);
      await sql`create index outbox_published on outbox (published_at) where published_at is not null`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`delete from outbox where published_at is not null`.execute(db);
      await db.schema.dropIndex('outbox_published').execute();
      await db.schema.dropIndex('outbox_unpublished').execute();
      await db.schema
        .alterTable('outbox')
        .dropColumn('published_at')
        .dropColumn('stream')
        .dropColumn('stream_seq')
        .execute();
    },
  },
};
