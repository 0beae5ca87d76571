import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './nats.ts';
import { serverProcess } from './processes.ts';
import { runAsPostgres } from './postgres.ts';

const pgBouncerBin = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Why PgBouncer cannot run here, or null when it can. */
export function pgBouncerProblem(): string | null {
  return existsSync(pgBouncerBin)
    ? null
    : `no pgbouncer at ${pgBouncerBin} (apt-get install pgbouncer, or set PGBOUNCER_BIN)`;
}

export type PgBouncer = {
  /** Its address, `host:port`: a service's URL with this host is the same role and database through it. */
  host: string;
  /** Asks its admin console (`SHOW POOLS`, `SHOW STATS`) and answers the rows. */
  show(what: 'POOLS' | 'STATS'): Promise<Array<Record<string, string>>>;
  stop(): Promise<void>;
};

/**
 * PgBouncer in transaction mode in front of the server of `serverAdminUrl`, as deploy/pgbouncer.ini
 * configures it (trust instead of passwords): every database, `users` (and `postgres`) may connect,
 * at most `poolSize` server connections per role and database.
 */
export async function startPgBouncer(serverAdminUrl: string, users: string[], poolSize = 5): Promise<PgBouncer> {
  const server = new URL(serverAdminUrl);
  const dir = await mkdtemp(path.join(tmpdir(), 'qw-pgbouncer-'));
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  await writeFile(path.join(dir, 'users.txt'), ['postgres', ...users].map((user) => `"${user}" ""\n`).join(''));
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      // The pool asks for its schema's search_path in the startup packet; PgBouncer cannot pass
      // that on, and the role's default search_path (provisionSchema) gives the same.
      'ignore_startup_parameters = options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const user = runAsPostgres();
  if (user) await chown(dir, user.uid, user.gid);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/pgbouncer`;
  const show = async (what: 'POOLS' | 'STATS') => {
    // The admin console speaks only the simple query protocol, which pg uses for a query without values.
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return (await client.query(`SHOW ${what}`)).rows as Array<Record<string, string>>;
    } finally {
      await client.end();
    }
  };
  const bouncer = serverProcess(
    () =>
      spawn(pgBouncerBin, user ? ['-u', 'postgres', ini] : [ini], {
        stdio: 'ignore',
      }),
    async () => void (await show('POOLS')),
  );
  await bouncer.start();
  return {
    host: `127.0.0.1:${port}`,
    show,
    async stop() {
      await bouncer.halt('SIGINT');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
