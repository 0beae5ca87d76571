import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { AppError } from '@qw/contracts';
import type { BillingDatabase } from './database.ts';

type Db = Kysely<BillingDatabase>;

/** A test clock reads real time moved on by what its test advanced it; without a clock, real time. */
export function clockTime(realNow: Date, offsetSeconds: number): Date {
  return new Date(realNow.getTime() + offsetSeconds * 1000);
}

export function daysInSeconds(days: number): number {
  return Math.round(days * 86_400);
}

/** A new clock for one test-provider checkout; its subscription keeps it (Stripe attaches clocks the same way). */
export async function createTestClock(db: Db): Promise<string> {
  const id = randomUUID();
  await db.insertInto('test_clocks').values({ id, offset_seconds: 0 }).execute();
  return id;
}

/** The time on this clock: renewals and the refund window read it. Stripe subscriptions have none. */
export async function clockNow(db: Db, clockId: string | null | undefined, realNow = new Date()): Promise<Date> {
  if (!clockId) return realNow;
  const row = await db.selectFrom('test_clocks').select('offset_seconds').where('id', '=', clockId).executeTakeFirst();
  return clockTime(realNow, Number(row?.offset_seconds ?? 0));
}

export async function advanceTestClock(db: Db, clockId: string, days: number): Promise<Date> {
  const moved = await db
    .updateTable('test_clocks')
    .set({ offset_seconds: sql<number>`offset_seconds + ${daysInSeconds(days)}` })
    .where('id', '=', clockId)
    .returning('offset_seconds')
    .executeTakeFirst();
  if (!moved) throw new AppError('not_found', 'There is no such test clock.');
  return clockTime(new Date(), Number(moved.offset_seconds));
}

/**
 * Sets the clock of a checkout not yet paid so that it reads `at` now (rounded up to the second it
 * counts in), as a Stripe test clock is created at a chosen time: the demo history buys plans in
 * the past. Once the checkout is paid its clock only moves forward (advance-clock); the checkout
 * is locked, so a payment and a start never cross.
 */
export async function startTestClock(db: Db, clockId: string, at: Date, realNow = new Date()): Promise<Date> {
  if (Number.isNaN(at.getTime()))
    throw new AppError('validation_failed', 'at must be a date and time.', { field: 'at' });
  return db.transaction().execute(async (tx) => {
    const checkout = await tx
      .selectFrom('checkout_sessions')
      .select('status')
      .where('test_clock_id', '=', clockId)
      .forUpdate()
      .executeTakeFirst();
    if (!checkout) throw new AppError('not_found', 'There is no such test clock.');
    if (checkout.status !== 'open')
      throw new AppError(
        'conflict',
        'This checkout is paid already, so its clock can no longer be set: it only moves forward now (advance-clock). Start a new checkout to begin at another time.',
      );
    const offset = Math.ceil((at.getTime() - realNow.getTime()) / 1000);
    await tx.updateTable('test_clocks').set({ offset_seconds: offset }).where('id', '=', clockId).execute();
    return clockTime(realNow, offset);
  });
}

/** One calendar month later, on the same day or the month's last day (Jan 31 → Feb 28). */
export function addMonths(date: Date, months = 1): Date {
  const result = new Date(date);
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
