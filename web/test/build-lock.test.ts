import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withBuildLock } from './support/global-setup';

/** The web build's lock (global-setup.ts), on a folder of this file's own. */
describe('the web build lock', () => {
  const root = mkdtempSync(join(tmpdir(), 'qw-build-lock-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is taken over from a test process killed while it held it, without waiting for it to age', async () => {
    const lock = join(root, 'dead.lock');
    // A pid that no process has any more: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(gone));
    const ran = await withBuildLock(lock, async () => {
      expect(existsSync(join(lock, 'pid'))).toBe(true);
      return 'ran';
    });
    expect(ran).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a holder that is still running, then runs', async () => {
    const lock = join(root, 'live.lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    const order: string[] = [];
    const waiting = withBuildLock(lock, async () => void order.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 600));
    order.push('first done');
    rmSync(lock, { recursive: true, force: true });
    await waiting;
    expect(order).toEqual(['first done', 'second']);
  });
});
