import { sql } from 'kysely';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import type { Mailer, MailMessage } from './index.ts';
import type { PlatformDb } from '../db/platform-tables.ts';
import { CoalescedPasses } from '../passes.ts';

/**
 * Mail that matters (a device's configuration, receipts, invitations) is not sent after the
 * commit and forgotten: the business transaction records a job (`queueMail`), and the service's
 * mail queue sends it, retrying with backoff until the mail server takes it. A job holds what to
 * send about (a device id), never the mail itself: it is rendered at sending time, so no secret
 * (a private key, a link) waits in the database, and a job that a later change made pointless
 * (a newer key) renders to nothing and is dropped.
 */
export type MailRenderer = (payload: Record<string, unknown>) => Promise<MailMessage | null | typeof mailNotYet>;

/**
 * What a renderer answers when the mail cannot go yet but will (its recipient has not confirmed
 * the address): the job waits `mailWaitSeconds` (or until the service makes it due again, as when
 * the address is confirmed), without counting as a failed attempt, for at most `mailWaitDays`.
 */
export const mailNotYet = 'not_yet' as const;
export const mailWaitSeconds = 3600;
export const mailWaitDays = 30;
/** How long a pass holds the jobs it claimed: longer than a render and a mail server's answer take. */
export const mailClaimSeconds = 600;

export async function queueMail(tx: PlatformDb, kind: string, payload: Record<string, unknown>): Promise<string> {
  const id = uuidv7();
  await tx
    .insertInto('mail_jobs')
    .values({ id, kind, payload: JSON.stringify(payload) })
    .execute();
  return id;
}

type MailJob = { id: string; kind: string; payload: Record<string, unknown>; attempts: number };

/** The wait before the n-th retry: 5 s doubling, capped at an hour. */
export function mailRetryDelaySeconds(attempts: number): number {
  return Math.min(5 * 2 ** Math.max(0, attempts - 1), 3600);
}

/** Jobs a mail server refused this many times are given up (and logged), not retried for ever. */
export const mailMaxAttempts = 12;

export class MailQueue {
  private stopped = false;
  // Woken during a pass: jobs committed after its select wait for one more pass, not a timer.
  private readonly passes = new CoalescedPasses(
    () => this.drainOnce(),
    () => !this.stopped,
  );

  constructor(
    private readonly options: {
      db: PlatformDb;
      mailer: Mailer;
      logger: Logger;
      renderers: Record<string, MailRenderer>;
      batchSize?: number;
    },
  ) {}

  /**
   * Sends what is due now (after a commit that queued mail, and on the service's timer). Never
   * rejects: callers wake it and go on, so a failed pass (a mail server or database away, or the
   * service stopping under it) is logged here and its jobs wait for the next pass.
   */
  wake(): Promise<number> {
    return this.pass().catch((error: unknown) => {
      if (!this.stopped) this.options.logger.warn({ err: error }, 'queued mail not sent yet; will retry');
      return 0;
    });
  }

  private pass(): Promise<number> {
    return this.stopped ? Promise.resolve(0) : this.passes.run();
  }

  /**
   * One pass: claim due jobs (replicas skip each other's), then render and send each outside any
   * transaction, then record. Rendering may ask another service and sending waits for the mail
   * server: neither holds a lock or a connection. A claimed job is not due for `mailClaimSeconds`,
   * so a process that dies mid-pass leaves it to the next pass after that. Returns how many were sent.
   */
  async drainOnce(): Promise<number> {
    const { db, logger } = this.options;
    const jobs = await db.transaction().execute(async (tx) => {
      const due = await sql<MailJob>`
        select id, kind, payload, attempts from mail_jobs
        where sent_at is null and given_up_at is null and next_attempt_at <= now()
        order by id limit ${this.options.batchSize ?? 20} for update skip locked`.execute(tx);
      const ids = due.rows.map((job) => job.id);
      if (ids.length > 0)
        await sql`update mail_jobs set next_attempt_at = now() + make_interval(secs => ${mailClaimSeconds})
                  where id = any(${ids}::uuid[])`.execute(tx);
      return due.rows;
    });
    let sent = 0;
    for (const job of jobs) {
      try {
        const render = this.options.renderers[job.kind];
        if (!render) throw new Error(`no renderer for mail kind ${job.kind}`);
        const message = await render(job.payload);
        if (message === mailNotYet) {
          await sql`update mail_jobs set
                      next_attempt_at = now() + make_interval(secs => ${mailWaitSeconds}),
                      given_up_at = case when created_at < now() - make_interval(days => ${mailWaitDays})
                                         then now() end,
                      last_error = 'waiting for the recipient'
                    where id = ${job.id}`.execute(db);
          continue;
        }
        if (message) await this.options.mailer.send(message);
        await sql`update mail_jobs set sent_at = now(), last_error = null where id = ${job.id}`.execute(db);
        if (message) sent += 1;
      } catch (error) {
        const attempts = job.attempts + 1;
        const reason = String((error as Error)?.message ?? error).slice(0, 500);
        if (attempts >= mailMaxAttempts) {
          logger.error({ kind: job.kind, jobId: job.id, attempts, reason }, 'mail given up');
          await sql`update mail_jobs set attempts = ${attempts}, last_error = ${reason}, given_up_at = now()
                    where id = ${job.id}`.execute(db);
        } else {
          logger.warn({ kind: job.kind, jobId: job.id, attempts }, 'mail not sent; will retry');
          await sql`update mail_jobs set attempts = ${attempts}, last_error = ${reason},
                      next_attempt_at = now() + make_interval(secs => ${mailRetryDelaySeconds(attempts)})
                    where id = ${job.id}`.execute(db);
        }
      }
    }
    return sent;
  }

  /**
   * No pass starts from now on, and the one under way is waited for: the service stops it before
   * its database closes. Jobs left are sent by the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.passes.settled();
  }

  /** Sent jobs are kept a week (to answer "did it go out?"), then forgotten. */
  async prune(): Promise<void> {
    await sql`delete from mail_jobs where coalesce(sent_at, given_up_at) < now() - interval '7 days'`.execute(
      this.options.db,
    );
  }
}
