import { execFile, spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './nats.ts';
import { serverProcess } from './processes.ts';

export type PrivatePostgres = {
  /** Administrator URL (user postgres, trust) of its `postgres` database. */
  adminUrl: string;
  port: number;
  /** Crash (immediate shutdown, no checkpoint), stay down `downMs`, start again (recovery from WAL). */
  crashAndRestart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
};

const runFile = promisify(execFile);

let foundBinDir: string | undefined;

/** Where initdb and postgres are: PG_BIN_DIR, else what pg_config says (asked once). */
function binDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  if (foundBinDir === undefined) {
    const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
    foundBinDir = found.status === 0 && found.stdout.trim() ? found.stdout.trim() : '/usr/lib/postgresql/15/bin';
  }
  return foundBinDir;
}

/** Postgres (and PgBouncer) refuse to run as root: as root, their processes run as the `postgres` account. */
export function runAsPostgres(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error('running as root, and there is no postgres account to run Postgres as');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Runs one of Postgres's programs to its end (at most a minute), as `user`; throws with its output if it fails. */
async function runTool(bin: string, tool: string, args: string[], user: { uid: number; gid: number } | undefined) {
  try {
    await runFile(path.join(bin, tool), args, { encoding: 'utf8', timeout: 60_000, ...(user ?? {}) });
  } catch (error) {
    const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${tool} failed: ${stderr || stdout || message}`);
  }
}

/** Why a private Postgres cannot run here, or null when it can. */
export function privatePostgresProblem(): string | null {
  const initdb = path.join(binDir(), 'initdb');
  return existsSync(initdb) ? null : `no initdb at ${initdb} (set PG_BIN_DIR)`;
}

/**
 * A Postgres server of the test's own, in a temporary data directory on its own port, for
 * tests that crash and restart the database without disturbing anyone else.
 *
 * With `standbyOf` (the admin URL of a server that accepts replication connections, as every
 * private server does), it starts as a hot standby of that server instead: a base backup of
 * it, streaming its WAL from then on and answering read-only queries.
 */
export async function startPrivatePostgres(options: { standbyOf?: string } = {}): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = runAsPostgres();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qw-pg-'));
  if (user) await chown(dataDir, user.uid, user.gid);
  if (options.standbyOf) await runTool(bin, 'pg_basebackup', baseBackupArgs(options.standbyOf, dataDir), user);
  else await runTool(bin, 'initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], user);
  const port = await freePort();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const server = serverProcess(
    () =>
      spawn(
        path.join(bin, 'postgres'),
        [
          '-D',
          dataDir,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'unix_socket_directories=',
          '-c',
          'max_connections=60',
        ],
        {
          stdio: 'ignore',
          ...(user ?? {}),
        },
      ),
    async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      try {
        await client.connect();
        await client.query('select 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  );

  await server.start();
  return {
    adminUrl,
    port,
    // SIGQUIT is Postgres' immediate shutdown: every backend exits at once, as in a crash.
    crashAndRestart: (downMs = 500) => server.restart('SIGQUIT', downMs),
    async stop() {
      await server.halt('SIGINT');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * pg_basebackup of the server at `primaryUrl` into `dataDir`, written as a standby of it (-R:
 * standby.signal and primary_conninfo), with the WAL of the copy streamed alongside (-X stream).
 */
function baseBackupArgs(primaryUrl: string, dataDir: string): string[] {
  const primary = new URL(primaryUrl);
  return [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    decodeURIComponent(primary.username) || 'postgres',
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
    '--no-sync',
  ];
}

/**
 * Waits until the standby at `standbyUrl` has replayed everything the primary at `primaryUrl` had
 * written when this was called: after it, a read on the standby sees every commit made before.
 */
export async function standbyCaughtUp(primaryUrl: string, standbyUrl: string, timeoutMs = 20_000): Promise<void> {
  const ask = async <T>(url: string, query: string): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(query)).rows[0] as T;
    } finally {
      await client.end();
    }
  };
  const { lsn } = await ask<{ lsn: string }>(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { behind } = await ask<{ behind: boolean }>(
      standbyUrl,
      `select coalesce(pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn, true) as behind`,
    );
    if (!behind) return;
    if (Date.now() > deadline) throw new Error(`the standby has not replayed up to ${lsn} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
