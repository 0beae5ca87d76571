import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry } from '../src/index.ts';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('./fixtures/app/', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  // Inside the repository, as every bundle must be: its imports of installed packages resolve from there.
  dir = await mkdtemp(path.join(repoRoot, 'node_modules', '.cache', 'qw-bundle-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs a bundle with plain Node (no TypeScript loader) and answers what it printed. */
async function output(bundle: string): Promise<{ here: string; migrationsFolder: string; names: string[] | string }> {
  const { stdout } = await run(process.execPath, [bundle], { cwd: dir });
  return JSON.parse(stdout);
}

describe('bundleEntry', () => {
  it('makes one module plain Node runs, whose sources still find files beside them', async () => {
    const outfile = path.join(dir, 'deeper', 'app.mjs');
    await bundleEntry({ entry: path.join(fixture, 'src/main.ts'), outfile });
    const printed = await output(outfile);
    expect(printed.here).toBe(path.join(fixture, 'src/paths.ts'));
    expect(printed.migrationsFolder).toBe(path.join(fixture, 'migrations/'));
    // The workspace's own library is inside the bundle; installed packages are not.
    const bundle = await readFile(outfile, 'utf8');
    expect(bundle).toContain('serviceMigrationNames');
    expect(bundle).toMatch(/from "kysely"/);
    expect(await readFile(`${outfile}.map`, 'utf8')).toContain('fixtures/app/src/paths.ts');
  });

  it('carries the migrations: the service applies them without reading their TypeScript', async () => {
    const withMigrations = path.join(dir, 'with-migrations.mjs');
    await bundleEntry({
      entry: path.join(fixture, 'src/main.ts'),
      outfile: withMigrations,
      migrations: path.join(fixture, 'migrations'),
    });
    const names = (await output(withMigrations)).names;
    expect(names).toContain('2026_01_01_000000_first');
    expect(names).toContain('2026_01_02_000000_second');
    // Without them, plain Node cannot import the folder's TypeScript at all.
    const without = path.join(dir, 'without.mjs');
    await bundleEntry({ entry: path.join(fixture, 'src/main.ts'), outfile: without });
    expect((await output(without)).names).toBe('ERR_UNKNOWN_FILE_EXTENSION');
  });

  it('fails with the reason when an entry does not compile', async () => {
    await expect(
      bundleEntry({ entry: path.join(fixture, 'src/missing.ts'), outfile: path.join(dir, 'missing.mjs') }),
    ).rejects.toThrow(/missing\.ts/);
  });
});
