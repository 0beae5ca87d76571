import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

export type BundleOptions = {
  /** The TypeScript entry point (absolute, or relative to the working directory). */
  entry: string;
  /** Where the bundle is written (an `.mjs` file); a source map is written beside it. */
  outfile: string;
  /**
   * A folder of migrations (each a `.ts` module) that the entry's service reads at its start: they
   * are bundled too and handed to the platform before the entry runs, since plain Node cannot
   * import the folder's TypeScript (libs/platform, `registerBuiltMigrations`).
   */
  migrations?: string;
};

/**
 * Compiles a TypeScript entry point and everything of ours it imports (the workspace's `@qw/*`
 * libraries included) into one ES module that plain Node runs, with no TypeScript loader at run
 * time: a service started through tsx spent seconds of CPU in the loader's hooks (one for every
 * module it imports, node_modules included) before it served anything; the bundle starts in a
 * fraction of that. Installed packages stay imports (resolved from the bundle's place, so it must
 * be written where the repository's node_modules are found). Each source file's `import.meta.url`
 * still names that source file, so the paths the code builds from it (migrations, web/dist,
 * scripts) are those it had when run from source.
 */
export async function bundleEntry(options: BundleOptions): Promise<void> {
  const entry = path.resolve(options.entry);
  const outfile = path.resolve(options.outfile);
  const outdir = path.dirname(outfile);
  const migrations = options.migrations ? await migrationModules(path.resolve(options.migrations)) : undefined;
  await build({
    stdin: {
      contents: [
        // Evaluated in order: the migrations are registered before the entry's first line runs.
        ...(migrations ? [`import ${JSON.stringify(registerModule)};`] : []),
        `import ${JSON.stringify(entry)};`,
      ].join('\n'),
      resolveDir: path.dirname(entry),
      sourcefile: path.basename(outfile),
      loader: 'js',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Names of classes and functions as in the source (errors' names, logs), not as the bundle
    // renamed them to keep its scope free of clashes.
    keepNames: true,
    logLevel: 'silent',
    plugins: [
      installedPackagesExternal(),
      sourceRelativeImportMeta(outdir),
      ...(migrations ? [migrationsRegistration(options.migrations!, migrations, outdir)] : []),
    ],
  });
}

/** The virtual module that hands the bundled migrations to the platform. */
const registerModule = 'qw-built:migrations';

/** Installed packages stay `import`s; only relative paths and the workspace's own libraries are bundled. */
function installedPackagesExternal(): Plugin {
  return {
    name: 'installed-packages-external',
    setup(plugin) {
      plugin.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === 'entry-point' || args.path.startsWith('@qw/') || args.path.startsWith('qw-built:'))
          return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * `import.meta.url` in our sources becomes that source file's URL, computed from the bundle's own
 * place at run time (a relative path, so the tree may live anywhere as long as the bundle sits
 * where it was built in it).
 */
function sourceRelativeImportMeta(outdir: string): Plugin {
  return {
    name: 'source-relative-import-meta',
    setup(plugin) {
      plugin.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        const url = `new URL(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)}, import.meta.url).href`;
        return {
          contents: source.replaceAll('import.meta.url', url),
          loader: 'ts',
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}

/**
 * The folder's migration modules, by name (the file's name without its extension), sorted: the
 * files the platform's migration provider reads from a folder (libs/platform/src/db), by the same rule.
 */
async function migrationModules(folder: string): Promise<Array<{ name: string; file: string }>> {
  if (!existsSync(folder)) throw new Error(`no migrations folder at ${folder}`);
  return (await readdir(folder))
    .filter((file) => /\.(ts|js|mjs)$/.test(file) && !file.endsWith('.d.ts') && !file.includes('.test.'))
    .sort()
    .map((file) => ({ name: file.replace(/\.(ts|js|mjs)$/, ''), file: path.join(folder, file) }));
}

function migrationsRegistration(
  folder: string,
  modules: Array<{ name: string; file: string }>,
  outdir: string,
): Plugin {
  const relativeFolder = path.relative(outdir, path.resolve(folder)).split(path.sep).join('/');
  return {
    name: 'migrations-registration',
    setup(plugin) {
      plugin.onResolve({ filter: /^qw-built:migrations$/ }, () => ({ path: registerModule, namespace: 'qw-built' }));
      plugin.onLoad({ filter: /.*/, namespace: 'qw-built' }, () => ({
        contents: [
          `import { fileURLToPath } from 'node:url';`,
          `import { registerBuiltMigrations } from '@qw/platform';`,
          ...modules.map((module, index) => `import * as m${index} from ${JSON.stringify(module.file)};`),
          `registerBuiltMigrations(fileURLToPath(new URL(${JSON.stringify(`${relativeFolder}/`)}, import.meta.url)), {`,
          ...modules.map((module, index) => `  ${JSON.stringify(module.name)}: m${index},`),
          '});',
        ].join('\n'),
        loader: 'js',
        resolveDir: path.resolve(folder),
      }));
    },
  };
}
