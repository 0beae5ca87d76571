import { sql, type QueryExecutorProvider } from 'kysely';

/**
 * A transaction-scoped advisory lock on a name within the service's own schema (`tx`: a transaction): transactions that
 * take it run their checks one after another instead of both reading the state before either
 * wrote. Released at commit or rollback. Take several in a fixed order, so two never wait crosswise.
 */
export async function lockName(tx: QueryExecutorProvider, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || ${name}, 0))`.execute(tx);
}
