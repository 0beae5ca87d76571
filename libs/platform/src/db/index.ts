import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Kysely, Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import { platformMigrations } from './platform-migrations.ts';
import { OutboxCommitSignal, signallingPostgresDialect } from './outbox-signal.ts';
import { prepareRepeatedStatements } from './prepared-statements.ts';
import { fastTimestampTypes } from './timestamps.ts';

export { OutboxCommitSignal } from './outbox-signal.ts';
export * from './platform-tables.ts';
export { inTransaction } from './transaction-scope.ts';
export { builtOnce, builtPerShape, pageLiterals, type PageBounds } from './built-once.ts';
export { prepareRepeatedStatements } from './prepared-statements.ts';
export { lockName } from './transaction-lock.ts';

/**
 * Migrations a built service carries inside its bundle (libs/build), by the folder they were
 * bundled from: plain Node cannot import that folder's TypeScript, so the bundle hands them over
 * before the service starts, and the folder is not read.
 */
const builtMigrations = new Map<string, Record<string, Migration>>();

/** Called by a bundle's first module (libs/build): `folder`'s migrations, already imported. */
export function registerBuiltMigrations(folder: string, migrations: Record<string, Migration>): void {
  builtMigrations.set(path.resolve(folder), migrations);
}

export { sql, type Kysely, type Transaction } from 'kysely';

export type Database<DB> = {
  db: Kysely<DB>;
  pool: pg.Pool;
  schema: string;
  url: string;
  /** Fires after a commit through `db` that inserted outbox rows; the relay listens. */
  outboxCommits: OutboxCommitSignal;
};

/**
 * Everything a service runs is pinned to its own schema through the connection's search_path.
 * `max` is the most connections the pool opens (DATABASE_POOL_MAX; see docs/operations.md for
 * the sum across services and replicas that must stay under Postgres's max_connections).
 * Statements the process sends again are prepared on each connection (prepared-statements.ts)
 * unless `preparedStatements` is false (DATABASE_PREPARED_STATEMENTS, off behind PgBouncer).
 * `timestamptz` values are read by `parseTimestamptz`.
 */
export function connectDatabase<DB>(
  url: string,
  schema: string,
  max = 10,
  options: { preparedStatements?: boolean } = {},
): Database<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    options: `-c search_path=${schema}`,
    // Timestamps read without node-postgres's regular expressions (timestamps.ts).
    types: fastTimestampTypes,
  });
  if (options.preparedStatements !== false) prepareRepeatedStatements(pool);
  // An idle client that loses its server (restart) emits here; the pool replaces it on next use.
  pool.on('error', () => undefined);
  // A client that loses its server while checked out (mid-transaction, e.g. while the relay
  // waits for JetStream) emits 'error' on itself, where nothing listens: an uncaught exception
  // that would end the process. Its pending query fails anyway, and the pool drops the client
  // when it comes back unusable.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const outboxCommits = new OutboxCommitSignal();
  const db = new Kysely<DB>({ dialect: signallingPostgresDialect({ pool }, outboxCommits) }).withSchema(schema);
  return { db, pool, schema, url, outboxCommits };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe identifier: ${name}`);
  return `"${name}"`;
}

/** The login role a service uses; it owns its schema and has no rights on any other. */
export function serviceRole(service: string): string {
  return `qw_${service.replace(/-/g, '_')}`;
}

/**
 * Run once with an administrator connection: creates the service's role (if missing) and a
 * schema it owns, and takes away every default right on `public`. The service then connects
 * as that role and can touch only its schema.
 */
export async function provisionSchema(adminUrl: string, schema: string, role = serviceRole(schema)): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    try {
      await client.query(`CREATE ROLE ${quoteIdent(role)} LOGIN`);
    } catch (error) {
      // 42710 duplicate_object; 23505 when two test files race on pg_authid.
      const code = (error as { code?: string }).code;
      if (code !== '42710' && code !== '23505') throw error;
    }
    const db = (await client.query<{ db: string }>('select current_database() as db')).rows[0]!.db;
    await client.query(`REVOKE ALL ON DATABASE ${quoteIdent(db)} FROM PUBLIC`);
    await client.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${quoteIdent(db)} TO ${quoteIdent(role)}`);
    await client.query('REVOKE ALL ON SCHEMA public FROM PUBLIC');
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)} AUTHORIZATION ${quoteIdent(role)}`);
    await client.query(`REVOKE ALL ON SCHEMA ${quoteIdent(schema)} FROM PUBLIC`);
    // The pool also asks for this search_path when it connects; a role default gives it to
    // connections that cannot ask (PgBouncer refuses the `options` startup parameter).
    try {
      await client.query(
        `ALTER ROLE ${quoteIdent(role)} IN DATABASE ${quoteIdent(db)} SET search_path = ${quoteIdent(schema)}`,
      );
    } catch (error) {
      // Two starts of one service at once write the same setting: one of them says so, harmlessly.
      if (!/tuple concurrently (updated|deleted)/.test((error as Error).message)) throw error;
    }
    await installExtensions(client, role);
  } finally {
    await client.end();
  }
}

/**
 * Extensions live in one schema of their own, `extensions`, which every service may use but none
 * owns: pg_trgm, whose trigram indexes let the operator console search names and addresses by any
 * part of them without reading every row.
 */
export const extensionsSchema = 'extensions';

async function installExtensions(client: pg.Client, role: string): Promise<void> {
  for (const statement of [
    `CREATE SCHEMA IF NOT EXISTS ${extensionsSchema}`,
    `CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA ${extensionsSchema}`,
  ]) {
    try {
      await client.query(statement);
    } catch (error) {
      // Two services provisioned at once may both try: 42710/42P06 duplicate, 23505 on the catalog.
      const code = (error as { code?: string }).code;
      if (code !== '42710' && code !== '42P06' && code !== '23505') throw error;
    }
  }
  await client.query(`GRANT USAGE ON SCHEMA ${extensionsSchema} TO ${quoteIdent(role)}`);
}

/** The connection string of `url` with the user replaced by the service's role. */
export function urlForRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = '';
  return parsed.toString();
}

class ServiceMigrationProvider implements MigrationProvider {
  constructor(private readonly folder: string | undefined) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = { ...platformMigrations };
    if (!this.folder) return migrations;
    const built = builtMigrations.get(path.resolve(this.folder));
    if (built) return { ...migrations, ...built };
    let files: string[] = [];
    try {
      files = await fs.readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return migrations;
      throw error;
    }
    for (const file of files.sort()) {
      if (!/\.(ts|js|mjs)$/.test(file) || file.endsWith('.d.ts') || file.includes('.test.')) continue;
      const module = (await import(pathToFileURL(path.join(this.folder, file)).href)) as Migration;
      migrations[file.replace(/\.(ts|js|mjs)$/, '')] = module;
    }
    return migrations;
  }
}

/** The names of the migrations a service whose folder is `folder` applies (the platform's first), sorted. */
export async function serviceMigrationNames(folder: string): Promise<string[]> {
  return Object.keys(await new ServiceMigrationProvider(folder).getMigrations()).sort();
}

export class MigrationError extends Error {
  constructor(
    readonly results: MigrationResultSet['results'],
    cause: unknown,
  ) {
    super(`migration failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'MigrationError';
  }
}

/** Brings the service's schema to the newest migration: the platform's bus tables, then its own files. */
export async function migrateToLatest<DB>(db: Kysely<DB>, schema: string, folder?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new ServiceMigrationProvider(folder),
    migrationTableSchema: schema,
    // Platform migrations are named to sort first; one added later must still run on a schema
    // whose service migrations are already applied.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw new MigrationError(results, error);
  return (results ?? [])
    .filter((r: { status: string }) => r.status === 'Success')
    .map((r: { migrationName: string }) => r.migrationName);
}

export async function pingDatabase<DB>(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
