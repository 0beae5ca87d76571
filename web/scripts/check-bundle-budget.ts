/**
 * The public pages' JavaScript budget: the gzipped size of every JS chunk that /, /pricing, /faq,
 * /about, /contact, /support and /servers load (the entry, their lazy route chunks, and everything those import
 * statically, transitively) must stay at or under 150 KB. Charting code (echarts) and TypeBox
 * schemas must never be among them.
 *
 *   npx tsx web/scripts/check-bundle-budget.ts [path/to/dist]
 *
 * Reads the Vite manifest, so run `vite build` first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const publicBudgetBytes = 150 * 1024;

/** The route modules of the public pages, as the router lazy-loads them. */
export const publicRouteModules: Readonly<Record<string, string>> = {
  '/': 'src/app/routes/home.route.tsx',
  '/pricing': 'src/app/routes/pricing.route.tsx',
  '/faq': 'src/app/routes/faq.route.tsx',
  '/about': 'src/app/routes/about.route.tsx',
  '/contact': 'src/app/routes/contact.route.tsx',
  '/support': 'src/app/routes/support.route.tsx',
  '/servers': 'src/app/routes/servers.route.tsx',
};

/** Code that only console screens may load. */
const forbiddenInPublic = /echarts|zrender/i;
/** TypeBox schemas (from `@qw/contracts`) carry this marker; the public pages need none of them. */
const schemaMarker = '~kind';

type ManifestChunk = {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
};
type Manifest = Record<string, ManifestChunk>;

export type ChunkSize = { file: string; bytes: number; gzipBytes: number };
export type BundleBudgetReport = {
  totalGzipBytes: number;
  budgetBytes: number;
  withinBudget: boolean;
  chunks: ChunkSize[];
  /** Public chunks that contain charting code or TypeBox schemas; must be empty. */
  forbiddenChunks: string[];
};

export const defaultDistDir = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');

export function checkBundleBudget(
  distDir: string = defaultDistDir,
  budgetBytes: number = publicBudgetBytes,
): BundleBudgetReport {
  const manifestPath = join(distDir, '.vite/manifest.json');
  if (!existsSync(manifestPath))
    throw new Error(`No Vite manifest at ${manifestPath}; run \`npx vite build web\` first.`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;

  const entryKey = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
  if (!entryKey) throw new Error('The manifest has no entry chunk.');
  const roots = [entryKey];
  for (const [route, module] of Object.entries(publicRouteModules)) {
    if (!manifest[module])
      throw new Error(`The manifest has no chunk for ${route} (${module}); is the route still lazy-loaded?`);
    roots.push(module);
  }

  // Everything the roots import statically, transitively; dynamic imports load later, on demand.
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) pending.push(imported);
  }

  const files = new Set<string>();
  for (const key of seen) {
    const file = manifest[key]?.file;
    if (file?.endsWith('.js')) files.add(file);
  }

  const chunks: ChunkSize[] = [...files].sort().map((file) => {
    const content = readFileSync(join(distDir, file));
    return { file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  });
  const forbiddenChunks = [...seen]
    .filter((key) => {
      const chunk = manifest[key];
      return (
        chunk &&
        (forbiddenInPublic.test(chunk.name ?? '') ||
          forbiddenInPublic.test(chunk.src ?? '') ||
          forbiddenInPublic.test(chunk.file))
      );
    })
    .map((key) => manifest[key]!.file);
  for (const file of files) {
    if (readFileSync(join(distDir, file), 'utf8').includes(schemaMarker) && !forbiddenChunks.includes(file))
      forbiddenChunks.push(file);
  }
  const totalGzipBytes = chunks.reduce((sum, chunk) => sum + chunk.gzipBytes, 0);
  return {
    totalGzipBytes,
    budgetBytes,
    withinBudget: totalGzipBytes <= budgetBytes && forbiddenChunks.length === 0,
    chunks,
    forbiddenChunks,
  };
}

function main() {
  const distDir = process.argv[2] ? resolve(process.argv[2]) : defaultDistDir;
  const report = checkBundleBudget(distDir);
  for (const chunk of report.chunks) console.log(`${String(chunk.gzipBytes).padStart(8)} B gz  ${chunk.file}`);
  console.log(
    `Public pages' JavaScript: ${report.totalGzipBytes} bytes gzipped (${(report.totalGzipBytes / 1024).toFixed(1)} KB) of a ${report.budgetBytes}-byte budget.`,
  );
  if (report.forbiddenChunks.length > 0)
    console.error(`Charting or schema code in public chunks: ${report.forbiddenChunks.join(', ')}`);
  if (!report.withinBudget) {
    console.error('Over budget.');
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
