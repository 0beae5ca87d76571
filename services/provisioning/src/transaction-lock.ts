import { sql, type Kysely } from 'kysely';
import type { ProvisioningDatabase } from './database.ts';

/**
 * A transaction-scoped advisory lock on a name: transactions that take it run their checks one
 * after another instead of both reading the state before either wrote. Released at commit.
 */
export async function lockName(tx: Kysely<ProvisioningDatabase>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(tx);
}
