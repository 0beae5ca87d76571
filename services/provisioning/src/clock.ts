import { sql, type Kysely } from 'kysely';
import { AppError } from '@qw/contracts';
import type { ProvisioningDatabase } from './database.ts';

type Db = Kysely<ProvisioningDatabase>;

/** Provisioning's time: scheduled rotations and grace periods read it. */
export type Clock = { now(): Promise<Date>; readonly testable: boolean };

export const realClock: Clock = { now: async () => new Date(), testable: false };

/** Real time moved on by what the tests advanced it (one row; kept in Postgres so it survives a restart). */
export function testClock(db: Db): Clock {
  return {
    testable: true,
    async now() {
      const row = await db.selectFrom('test_clock').select('offset_seconds').executeTakeFirst();
      return new Date(Date.now() + Number(row?.offset_seconds ?? 0) * 1000);
    },
  };
}

export async function advanceClock(db: Db, clock: Clock, hours: number): Promise<Date> {
  if (!clock.testable) throw new AppError('not_found', 'The test clock is off.');
  const seconds = Math.round(hours * 3600);
  await db
    .insertInto('test_clock')
    .values({ offset_seconds: seconds })
    .onConflict((oc) => oc.column('id').doUpdateSet({ offset_seconds: sql`test_clock.offset_seconds + ${seconds}` }))
    .execute();
  return clock.now();
}
