import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * scripts/node-install.sh refuses what it cannot use before it touches anything (no request, no
 * file): the end-to-end run is services/gateway/test/fleet-enrolment.test.ts. And it passes
 * shellcheck where shellcheck is installed.
 */
const run = promisify(execFile);
const script = fileURLToPath(new URL('../node-install.sh', import.meta.url));
const configDir = mkdtempSync(path.join(tmpdir(), 'qw-install-'));
const token = 'A'.repeat(43);

async function install(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run('bash', [script, '--config-dir', path.join(configDir, 'etc'), ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

afterAll(() => rmSync(configDir, { recursive: true, force: true }));

describe('node-install.sh', () => {
  it.each([
    [[], '--token is required'],
    [['--token', token], '--control is required'],
    [['--token', 'x;rm -rf /', '--control', 'http://127.0.0.1:1'], 'not one the console gives'],
    [['--token', token, '--control', 'http://a b'], 'not an http(s) URL'],
    [['--token', token, '--control', 'file:///etc/passwd'], 'not an http(s) URL'],
    [['--token', token, '--control', 'http://127.0.0.1:1', '--interface', 'wg0;reboot'], 'not an interface name'],
    [['--token', token, '--control', 'http://127.0.0.1:1', '--netns', '../x y'], 'not a namespace name'],
    [['--token', token, '--control', 'http://127.0.0.1:1', '--agent-dir', '/nonexistent'], 'not in /nonexistent'],
    [['--token', token, '--bogus'], 'unknown option --bogus'],
  ])('refuses %j: %s', async (args, said) => {
    const result = await install(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(said);
  });

  it('passes shellcheck', async () => {
    const shellcheck = await run('sh', ['-c', 'command -v shellcheck']).catch(() => null);
    if (!shellcheck) return console.info('node-install: shellcheck not installed, not run');
    await expect(run('shellcheck', [script])).resolves.toBeDefined();
  });
});
