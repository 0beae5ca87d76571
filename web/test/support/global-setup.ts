import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { distDir, repoRoot, webDir } from './paths.ts';

/** What the build depends on: a change to any of these makes web/dist stale. */
const buildInputs = [
  join(webDir, 'src'),
  join(webDir, 'public'),
  join(webDir, 'index.html'),
  join(webDir, 'vite.config.ts'),
  // The build's prerender step (a vite plugin the config loads).
  join(webDir, 'scripts/prerender.ts'),
  join(repoRoot, 'libs/contracts/src'),
];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

export function webBuildIsFresh(): boolean {
  const index = join(distDir, 'index.html');
  if (!existsSync(index) || !existsSync(join(distDir, '.vite/manifest.json'))) return false;
  const built = statSync(index).mtimeMs;
  return buildInputs.every((input) => newestMtime(input) <= built);
}

function runViteBuild(): Promise<void> {
  const viteBin = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
  return new Promise((resolvePromise, reject) => {
    // Vitest sets NODE_ENV=test, which would give a development React build; build what ships.
    const env = { ...process.env, NODE_ENV: 'production' };
    const child = spawn(process.execPath, [viteBin, 'build', '--logLevel', 'warn'], {
      cwd: webDir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`vite build exited with ${code}`))));
  });
}

const lockDir = join(tmpdir(), `qw-web-build-${createHash('sha1').update(webDir).digest('hex').slice(0, 12)}.lock`);
const staleLockMs = 5 * 60_000;

/** Whether the process that took the lock `dir` has gone (killed mid-run) without removing it. */
function holderGone(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    return false; // Taken a moment ago, its holder not written yet (or removed meanwhile).
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Runs `work` while this process holds the lock `dir` (a folder made for it, with the holder's
 * pid), waiting while another process holds it. A lock is taken over once its holder is gone (a
 * run killed while it held it, which held up the next run's browser files for minutes) or once
 * it is older than a few minutes (a holder whose pid was reused).
 */
export async function withBuildLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(dir);
      break;
    } catch {
      if (existsSync(dir) && (holderGone(dir) || Date.now() - statSync(dir).mtimeMs > staleLockMs))
        rmSync(dir, { recursive: true, force: true });
      await new Promise((resolveTimer) => setTimeout(resolveTimer, 250));
    }
  }
  try {
    writeFileSync(join(dir, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Builds web/dist when it is missing or older than any source file, then runs `use` while no other
 * test process can rebuild it (a rebuild empties web/dist first). Safe to call from several test
 * processes at once: one builds, the others wait and then find the build fresh.
 */
export async function withWebBuild<T>(use: (dist: string) => T | Promise<T>): Promise<T> {
  return withBuildLock(lockDir, async () => {
    if (!webBuildIsFresh()) await runViteBuild();
    return use(distDir);
  });
}

export async function ensureWebBuild(): Promise<void> {
  if (webBuildIsFresh()) return;
  await withWebBuild(() => undefined);
}

/**
 * Vitest globalSetup: `globalSetup: ['web/test/support/global-setup.ts']`. Builds web/dist when
 * stale and starts the run's one Chromium, which browser test files connect to (chromium.ts);
 * answers the teardown that stops it.
 */
export async function setup(): Promise<(() => Promise<void>) | undefined> {
  // QW_SKIP_WEB_BUILD=1: running only back-end tests, which need neither the web build nor a browser.
  if (process.env.QW_SKIP_WEB_BUILD === '1') return undefined;
  if (!process.env.QW_SITE_URL) await ensureWebBuild();
  // QW_SHARED_BROWSER=0: every file launches a Chromium of its own, as before the shared one.
  if (process.env.QW_SHARED_BROWSER === '0') return undefined;
  // Imported here only: the gateway's stacks import this module for withWebBuild and need no Playwright.
  const { sharedBrowserEnv, startSharedBrowser } = await import('./chromium.ts');
  const browser = await startSharedBrowser();
  // The test processes start after this and inherit the variable.
  process.env[sharedBrowserEnv] = browser.wsEndpoint;
  return async () => {
    delete process.env[sharedBrowserEnv];
    await browser.close();
  };
}

export default setup;
