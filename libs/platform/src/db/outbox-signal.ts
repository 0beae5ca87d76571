import {
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Tells the outbox relay of this process that outbox rows have just committed, so it publishes
 * at once without a database trigger. (A NOTIFY trigger did this before; Postgres serializes the
 * commits of notifying transactions, which cost about 40% of the commit rate on this machine.)
 *
 * Rows written by another process are not seen here; the relay's idle poll picks them up.
 */
export class OutboxCommitSignal {
  private readonly listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** An insert built with kysely into a table named `outbox` (in whatever schema). */
function isOutboxInsert(query: CompiledQuery): boolean {
  const node = query.query;
  return node.kind === 'InsertQueryNode' && node.into?.table.identifier.name === 'outbox';
}

type Tracked = { inner: DatabaseConnection; inTransaction: boolean; wroteOutbox: boolean };

/** Wraps a connection so it can see its own outbox inserts; everything else passes through. */
class TrackingConnection implements DatabaseConnection {
  constructor(
    readonly state: Tracked,
    private readonly signal: OutboxCommitSignal,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.state.inner.executeQuery<R>(query);
    if (isOutboxInsert(query)) {
      if (this.state.inTransaction) this.state.wroteOutbox = true;
      else this.signal.emit();
    }
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.state.inner.streamQuery<R>(query, chunkSize);
  }
}

class SignallingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly signal: OutboxCommitSignal,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    return new TrackingConnection({ inner, inTransaction: false, wroteOutbox: false }, this.signal);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const { state } = connection as TrackingConnection;
    await this.inner.beginTransaction(state.inner, settings);
    state.inTransaction = true;
    state.wroteOutbox = false;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const { state } = connection as TrackingConnection;
    try {
      await this.inner.commitTransaction(state.inner);
    } finally {
      const wrote = state.wroteOutbox;
      state.inTransaction = false;
      state.wroteOutbox = false;
      // Also after a failed COMMIT: a spurious wake costs one empty query, a missed one a poll.
      if (wrote) this.signal.emit();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const { state } = connection as TrackingConnection;
    state.inTransaction = false;
    state.wroteOutbox = false;
    await this.inner.rollbackTransaction(state.inner);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint!((connection as TrackingConnection).state.inner, name, compileQuery);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint!((connection as TrackingConnection).state.inner, name, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint!((connection as TrackingConnection).state.inner, name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as TrackingConnection).state.inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The Postgres dialect, with commits of outbox rows reported to `signal`. */
export function signallingPostgresDialect(
  config: ConstructorParameters<typeof PostgresDialect>[0],
  signal: OutboxCommitSignal,
): Dialect {
  const base = new PostgresDialect(config);
  return {
    createAdapter: () => base.createAdapter(),
    createDriver: () => new SignallingDriver(base.createDriver(), signal),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
  };
}
