import { spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './nats.ts';
import { serverProcess } from './processes.ts';

export type PrivatePostgres = {
  /** Administrator URL (user postgres, trust) of its `postgres` database. */
  adminUrl: string;
  /** Crash (immediate shutdown, no checkpoint), stay down `downMs`, start again (recovery from WAL). */
  crashAndRestart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
};

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

/** Postgres refuses to run as root: as root, its processes run as the `postgres` account. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error('running as root, and there is no postgres account to run Postgres as');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Why a private Postgres cannot run here, or null when it can. */
export function privatePostgresProblem(): string | null {
  const initdb = path.join(binDir(), 'initdb');
  return existsSync(initdb) ? null : `no initdb at ${initdb} (set PG_BIN_DIR)`;
}

/**
 * A Postgres server of the test's own, in a temporary data directory on its own port, for
 * tests that crash and restart the database without disturbing anyone else.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const user = runAs();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qw-pg-'));
  if (user) await chown(dataDir, user.uid, user.gid);
  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'],
    {
      encoding: 'utf8',
      ...(user ?? {}),
    },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
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
    // SIGQUIT is Postgres' immediate shutdown: every backend exits at once, as in a crash.
    crashAndRestart: (downMs = 500) => server.restart('SIGQUIT', downMs),
    async stop() {
      await server.halt('SIGINT');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
