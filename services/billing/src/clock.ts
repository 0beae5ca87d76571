import { sql, type Kysely } from 'kysely';
import type { BillingDatabase } from './database.ts';

/** Real time, plus an offset that only the test clock moves; renewals and the refund window read it. */
export async function billingNow(db: Kysely<BillingDatabase>): Promise<Date> {
  const row = await db.selectFrom('test_clock').select('offset_seconds').where('id', '=', 1).executeTakeFirst();
  return new Date(Date.now() + Number(row?.offset_seconds ?? 0) * 1000);
}

export async function advanceClock(db: Kysely<BillingDatabase>, days: number): Promise<void> {
  await db.updateTable('test_clock').set({ offset_seconds: sql<number>`offset_seconds + ${Math.round(days * 86_400)}` }).where('id', '=', 1).execute();
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
