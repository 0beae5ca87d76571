import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry, serviceMigrations } from '@qw/build';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export type SpawnedProcess = {
  name: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * Runs a TypeScript entry point of the repo as its own Node process, collecting its output. The
 * entry is first bundled into plain JavaScript (libs/build, as `make services` builds the services
 * for production; once per entry in this test process), so the process starts without a TypeScript
 * loader: through tsx a service's start took 4.3–5.3 s of CPU, most of it in the loader's hooks,
 * and its bundle 1.5–1.9 s (measured to the configuration check). A service's entry
 * (`services/<name>/src/main.ts`) carries its migrations. `nodeArgs` go to Node before the entry
 * (`--cpu-prof`, which NODE_OPTIONS refuses).
 */
export async function spawnTsProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  options: {
    /** Arguments for Node before the entry. */
    nodeArgs?: readonly string[];
    /**
     * The migrations folder of the service the entry starts (relative to the repository), when
     * the entry is not a service's own `services/<name>/src/main.ts` (a benchmark's fixture).
     */
    migrations?: string;
  } = {},
): Promise<SpawnedProcess> {
  const nodeArgs = options.nodeArgs ?? [];
  const bundle = await bundled(entry, options.migrations);
  const child = spawn(process.execPath, ['--enable-source-maps', ...nodeArgs, bundle], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collected(name, child);
}

/** Bundles made by this process, by entry; removed when it exits. */
const bundles = new Map<string, Promise<string>>();
const bundleDir = path.join(repoRoot, 'node_modules', '.cache', 'qw-bundles', String(process.pid));

/**
 * `entry` bundled into this process's folder under node_modules/.cache (inside the repository, so
 * the bundle's imports of installed packages resolve to its node_modules).
 */
function bundled(entry: string, migrationsFolder?: string): Promise<string> {
  const key = `${entry} ${migrationsFolder ?? ''}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    if (bundles.size === 0) process.once('exit', () => rmSync(bundleDir, { recursive: true, force: true }));
    const name = entry.replace(/\.ts$/, '').replace(/[^A-Za-z0-9.-]+/g, '_');
    const outfile = path.join(bundleDir, `${name}${migrationsFolder ? `-${bundles.size}` : ''}.mjs`);
    const service = /^services\/([^/]+)\/src\/main\.ts$/.exec(entry)?.[1];
    const migrations = migrationsFolder ?? (service ? serviceMigrations(service) : undefined);
    bundle = bundleEntry({
      entry: path.join(repoRoot, entry),
      outfile,
      ...(migrations ? { migrations: path.join(repoRoot, migrations) } : {}),
    }).then(() => outfile);
    bundle.catch(() => bundles.delete(key));
    bundles.set(key, bundle);
  }
  return bundle;
}

function collected(name: string, child: ChildProcess): SpawnedProcess {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    name,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await signalAndWait(child, signal);
      clearTimeout(timer);
      return child.exitCode;
    },
  };
}

/** A process of this machine as /proc shows it: its id, its parent's, its command line. */
export type ProcessEntry = { pid: number; parent: number; argv: string[] };

/**
 * The ids of this machine's processes that `match` picks (processes a test's code started
 * indirectly: wireguard-go, an agent's unbound). One that ends while /proc is read is left out.
 */
export function findProcesses(match: (entry: ProcessEntry) => boolean): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command name in parentheses: the state, then the parent's id.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (match({ pid: Number(name), parent, argv })) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Whether a process with this id exists (signal 0 asks without sending anything). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to a child that is still running and waits until it has exited. */
async function signalAndWait(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export type ServerProcess = {
  /** Spawns the server and returns once `ready` succeeds (retried for up to 20 s). */
  start(): Promise<void>;
  /** Stops it with `signal` and waits for the exit. */
  halt(signal: NodeJS.Signals): Promise<void>;
  /** Halts with `signal`, stays down `downMs`, starts again. */
  restart(signal: NodeJS.Signals, downMs: number): Promise<void>;
  /** Sends a signal and leaves it running (SIGHUP: reload the configuration). */
  signal(signal: NodeJS.Signals): void;
};

/** A private server (NATS, Postgres) that tests stop and start again on the same port and data. */
export function serverProcess(spawnServer: () => ChildProcess, ready: () => Promise<void>): ServerProcess {
  let child: ChildProcess | undefined;
  const server: ServerProcess = {
    async start() {
      child = spawnServer();
      const deadline = Date.now() + 20_000;
      for (;;) {
        try {
          await ready();
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          // A NATS server answers some 20 ms after it is spawned: asked again as often, not every 100 ms.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
    async halt(signal) {
      const running = child;
      child = undefined;
      await signalAndWait(running, signal);
    },
    signal(signal) {
      child?.kill(signal);
    },
    async restart(signal, downMs) {
      await server.halt(signal);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await server.start();
    },
  };
  return server;
}
