import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Repeated statements as prepared statements (issue #24). node-postgres sends each query as an
 * unnamed statement, so Postgres parses and plans it again every time; for the API's reads that
 * was a large part of what a request cost the machine (the Overview answered about half again as
 * many requests per second once its query was prepared). With this, a pool's clients name a statement the
 * second time its text is sent by the process (a one-off, such as a bulk insert of some number of
 * rows, is never prepared): Postgres parses it once per connection and may keep its plan.
 *
 * Bounded: at most `perConnection` statements are prepared on one connection (later ones run
 * unnamed), and the texts remembered are forgotten all at once past `texts`.
 *
 * A statement prepared before a migration changed its table can fail with "cached plan must not
 * change result type", and one the server no longer holds with "prepared statement does not
 * exist". Either way the connection starts new names, and a statement sent outside a transaction
 * is sent again unnamed, so the caller does not see it; inside a transaction the error stands
 * (the transaction has failed) and the next one uses the new names.
 *
 * Not behind a pooler in transaction mode (PgBouncer before 1.21): there consecutive statements
 * of one client reach different server connections. DATABASE_PREPARED_STATEMENTS=false turns
 * this off.
 */
export type PreparedStatementLimits = { perConnection: number; texts: number };

const preparedStatementLimits: PreparedStatementLimits = { perConnection: 200, texts: 4000 };

/** A select with no second statement after it. */
const singleSelect = /^\s*select\s[^;]*$/i;

type QueryFunction = (this: pg.PoolClient, ...args: unknown[]) => unknown;

/** Errors after which the connection's statements are named anew. */
function isStaleStatement(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return (
    code === '26000' ||
    (code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change'))
  );
}

export function prepareRepeatedStatements(pool: pg.Pool, limits: PreparedStatementLimits = preparedStatementLimits) {
  // Text → its hash once it has been seen a second time; `true` while it has been seen once.
  const seen = new Map<string, string | true>();
  const hashOf = (text: string): string | undefined => {
    const known = seen.get(text);
    if (typeof known === 'string') return known;
    if (seen.size >= limits.texts) seen.clear();
    if (known === undefined) {
      seen.set(text, true);
      return undefined;
    }
    const hash = createHash('sha1').update(text).digest('hex').slice(0, 24);
    seen.set(text, hash);
    return hash;
  };

  pool.on('connect', (client) => {
    // The names prepared on this connection (under the current generation of names), and the
    // transaction status of its last ReadyForQuery ('I': outside a transaction).
    const state = { generation: 0, status: 'I' };
    const names = new Set<string>();
    (client as unknown as pg.Client).connection.on('readyForQuery', (message: { status?: string }) => {
      state.status = message.status ?? state.status;
    });
    const query = client.query as unknown as QueryFunction;
    const nameOf = (text: string): string | undefined => {
      const hash = hashOf(text);
      if (!hash) return undefined;
      const name = `qw${state.generation}_${hash}`;
      if (!names.has(name)) {
        if (names.size >= limits.perConnection) return undefined;
        names.add(name);
      }
      return name;
    };
    const replacement = function (this: pg.PoolClient, ...args: unknown[]): unknown {
      const [text, values] = args;
      // Only kysely's form: text and values, no callback (pool.query and internals pass through).
      if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values)) return query.apply(this, args);
      // A text without values goes by the simple protocol, which allows several statements in one
      // (a migration's); only a single select is prepared (the console's unfiltered count).
      if (values.length === 0 && !singleSelect.test(text)) return query.apply(this, args);
      const name = nameOf(text);
      if (!name) return query.apply(this, args);
      const outsideTransaction = state.status === 'I';
      const sent = query.call(this, { name, text, values }) as Promise<unknown>;
      return sent.catch((error: unknown) => {
        if (!isStaleStatement(error)) throw error;
        state.generation++;
        names.clear();
        if (!outsideTransaction) throw error;
        return query.call(this, text, values);
      });
    };
    client.query = replacement as unknown as pg.PoolClient['query'];
  });
}
