import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, captureLogs, type TestDatabase } from '@qw/testkit';
import { connectDatabase, inTransaction, migrateToLatest, type Database } from '../src/db/index.ts';
import {
  MailQueue,
  mailClaimSeconds,
  mailMaxAttempts,
  mailRetryDelaySeconds,
  queueMail,
  type Mailer,
  type MailMessage,
} from '../src/mailer/index.ts';

let database: TestDatabase;
let db: Database<any>;
const logs = captureLogs('mailqueue');

beforeAll(async () => {
  database = await createTestDatabase('mailqueue');
  db = connectDatabase<any>(await database.provision('billing'), 'billing');
  await migrateToLatest(db.db, 'billing');
});

afterAll(async () => {
  await db?.db.destroy();
  await database?.drop();
});

/** A mail server that refuses until told otherwise, and remembers what it took. */
function flakyMailer() {
  const taken: MailMessage[] = [];
  let up = false;
  const mailer: Mailer = {
    async send(message) {
      if (!up) throw new Error('451 try again later');
      taken.push(message);
      return { messageId: String(taken.length) };
    },
    close() {},
  };
  return { mailer, taken, up: () => (up = true) };
}

const jobs = () =>
  sql<{ kind: string; attempts: number; sent: boolean; due_in: number }>`
  select kind, attempts, sent_at is not null as sent,
         round(extract(epoch from next_attempt_at - now()))::int as due_in
  from mail_jobs order by id`.execute(db.db);

describe('the mail queue', () => {
  it('keeps a queued mail through refusals, with a growing wait, and sends it once the server takes it', async () => {
    const server = flakyMailer();
    const queue = new MailQueue({
      db: db.db,
      mailer: server.mailer,
      logger: logs.logger,
      renderers: { hello: async (payload) => ({ to: 'ann@example.com', subject: `Hello ${payload.n}`, text: 'hi' }) },
    });
    // Queued inside a transaction that rolls back: nothing is ever sent.
    await db.db
      .transaction()
      .execute(async (tx) => {
        await queueMail(tx, 'hello', { n: 0 });
        throw new Error('undo');
      })
      .catch(() => undefined);
    await db.db.transaction().execute((tx) => queueMail(tx, 'hello', { n: 1 }));
    expect(await queue.wake()).toBe(0);
    expect((await jobs()).rows).toEqual([
      { kind: 'hello', attempts: 1, sent: false, due_in: mailRetryDelaySeconds(1) },
    ]);
    // Not due yet: nothing is tried again.
    expect(await queue.wake()).toBe(0);
    expect((await jobs()).rows[0]!.attempts).toBe(1);
    await sql`update mail_jobs set next_attempt_at = now()`.execute(db.db);
    server.up();
    expect(await queue.wake()).toBe(1);
    expect(server.taken.map((m) => m.subject)).toEqual(['Hello 1']);
    expect((await jobs()).rows[0]).toMatchObject({ sent: true });
    expect(await queue.wake()).toBe(0);
    expect(server.taken).toHaveLength(1);
  });

  it('drops a mail that renders to nothing, and gives one up after its last attempt', async () => {
    await sql`delete from mail_jobs`.execute(db.db);
    const server = flakyMailer();
    const queue = new MailQueue({
      db: db.db,
      mailer: server.mailer,
      logger: logs.logger,
      renderers: {
        superseded: async () => null,
        hello: async () => ({ to: 'a@example.com', subject: 'x', text: 'x' }),
      },
    });
    await db.db.transaction().execute(async (tx) => {
      await queueMail(tx, 'superseded', {});
      await queueMail(tx, 'hello', {});
    });
    await sql`update mail_jobs set attempts = ${mailMaxAttempts - 1} where kind = 'hello'`.execute(db.db);
    await queue.wake();
    const rows = (
      await sql<{ kind: string; sent: boolean; given_up: boolean }>`
      select kind, sent_at is not null as sent, given_up_at is not null as given_up from mail_jobs order by id`.execute(
        db.db,
      )
    ).rows;
    expect(rows).toEqual([
      { kind: 'superseded', sent: true, given_up: false },
      { kind: 'hello', sent: false, given_up: true },
    ]);
    expect(logs.text()).toContain('mail given up');
    expect(server.taken).toEqual([]);
  });

  it('renders and sends outside any transaction, holding its claimed jobs from other passes meanwhile', async () => {
    await sql`delete from mail_jobs`.execute(db.db);
    const server = flakyMailer();
    server.up();
    const seen: Array<{ inTransaction: boolean; due_in: number }> = [];
    const queue = new MailQueue({
      db: db.db,
      mailer: server.mailer,
      logger: logs.logger,
      renderers: {
        // A renderer may ask another service (provisioning asks identity for the address): never under a lock.
        hello: async () => {
          seen.push({ inTransaction: inTransaction(), due_in: (await jobs()).rows[0]!.due_in });
          return { to: 'a@example.com', subject: 'claimed', text: 'x' };
        },
      },
    });
    await db.db.transaction().execute((tx) => queueMail(tx, 'hello', {}));
    expect(await queue.wake()).toBe(1);
    expect(seen).toEqual([{ inTransaction: false, due_in: mailClaimSeconds }]);
    expect((await jobs()).rows[0]).toMatchObject({ sent: true });
  });
});
