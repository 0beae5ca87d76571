import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Every .ts file under `dir`, skipping dependencies, builds and migration folders. */
function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist'].includes(entry.name) || entry.name.endsWith('migrations')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sources(full));
    else if (entry.name.endsWith('.ts') && !entry.name.includes('migrations')) files.push(full);
  }
  return files;
}

describe('platform tables', () => {
  // The outbox, inbox, rate events and mail jobs have one type (db/platform-tables.ts); only
  // migrations, which must not import app code, see a database as untyped.
  const untypedHandle = ['Kysely', '<any>'].join('');
  it('leaves no untyped Kysely handle outside migrations', () => {
    const untyped = ['libs', 'services', 'scripts']
      .flatMap((top) => sources(path.join(root, top)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${path.relative(root, file)}:${i + 1}` }))
          .filter(({ line }) => line.includes(untypedHandle))
          .map(({ at }) => at),
      );
    expect(untyped).toEqual([]);
  });
});
