/**
 * Prerendered public pages (issue #24). After `vite build` has written web/dist, this plugin builds
 * src/entry-server.tsx for Node, renders each page of its `prerenderedPages` with react-dom/server
 * and writes dist/prerendered/<file>: the app's index.html with the page's markup in #root (marked
 * `data-prerendered`, which makes main.tsx hydrate instead of render), the page's title and
 * description, and links to the page's own chunk and stylesheets so they load beside the entry
 * instead of after it. dist/prerendered/pages.json lists path → file for the servers: the gateway
 * (services/gateway/src/web-app.ts) and, in the web tests, vite preview (below). dist/index.html
 * stays the empty shell every other path gets.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin, ResolvedConfig } from 'vite';

export const prerenderedDir = 'prerendered';
export const prerenderedIndex = 'pages.json';

/** dist/prerendered/pages.json: each prerendered path and its file under dist/prerendered/. */
export type PrerenderedPages = Record<string, string>;

type ManifestChunk = { file: string; css?: string[]; imports?: string[]; isEntry?: boolean };
type Manifest = Record<string, ManifestChunk>;
type ServerEntry = typeof import('../src/entry-server');

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The manifest keys a chunk loads before it runs: itself and its static imports, transitively. */
function staticClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key) || !manifest[key]) return into;
  into.add(key);
  for (const imported of manifest[key].imports ?? []) staticClosure(manifest, imported, into);
  return into;
}

/**
 * The <link>s a page's head needs beyond the shell's: the route chunk and what it imports (the
 * shell already loads the entry's), and their stylesheets. The hrefs are the ones Vite's loader
 * looks for before it adds its own, so nothing is fetched twice.
 */
export function routeHeadLinks(manifest: Manifest, module: string, base: string): string[] {
  const entryKey = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
  if (!entryKey) throw new Error('prerender: the Vite manifest has no entry chunk');
  if (!manifest[module]) throw new Error(`prerender: the Vite manifest has no chunk for ${module}`);
  const loaded = staticClosure(manifest, entryKey);
  const loadedCss = new Set([...loaded].flatMap((key) => manifest[key]?.css ?? []));
  const links: string[] = [];
  for (const key of staticClosure(manifest, module)) {
    const chunk = manifest[key] as ManifestChunk;
    for (const css of chunk.css ?? [])
      if (!loadedCss.has(css)) {
        loadedCss.add(css);
        links.push(`<link rel="stylesheet" crossorigin href="${base}${css}">`);
      }
    if (!loaded.has(key)) links.push(`<link rel="modulepreload" crossorigin href="${base}${chunk.file}">`);
  }
  return links;
}

/** The shell with one page in it. Throws when the shell is not shaped as expected (a silent miss would ship empty pages). */
export function pageDocument(
  shell: string,
  page: { html: string; head: { title: string; description: string } | null; links: string[] },
): string {
  const replace = (text: string, pattern: RegExp, by: string) => {
    if (!pattern.test(text)) throw new Error(`prerender: index.html has no ${pattern}`);
    return text.replace(pattern, () => by);
  };
  let html = replace(shell, /<div id="root"><\/div>/, `<div id="root" data-prerendered="">${page.html}</div>`);
  // The page is readable without JavaScript now.
  html = replace(html, /\s*<noscript>[\s\S]*?<\/noscript>/, '');
  if (page.head) {
    html = replace(html, /<title>[\s\S]*?<\/title>/, `<title>${escapeHtml(page.head.title)}</title>`);
    html = replace(
      html,
      /<meta name="description" content="[^"]*"\s*\/?>/,
      `<meta name="description" content="${escapeHtml(page.head.description)}" />`,
    );
  }
  return replace(html, /\s*<\/head>/, `${page.links.map((link) => `\n    ${link}`).join('')}\n  </head>`);
}

async function prerender(config: ResolvedConfig): Promise<void> {
  const { build } = await import('vite');
  const outDir = resolve(config.root, config.build.outDir);
  // Inside web/ so that Node finds react and react-router (left external) in node_modules.
  const serverDir = join(config.root, 'node_modules', '.qw-prerender', String(process.pid));
  rmSync(serverDir, { recursive: true, force: true });
  try {
    await build({
      configFile: config.configFile,
      root: config.root,
      mode: config.mode,
      logLevel: 'warn',
      build: {
        ssr: 'src/entry-server.tsx',
        outDir: serverDir,
        emptyOutDir: true,
        manifest: false,
        copyPublicDir: false,
        minify: false,
      },
    });
    const entry = (await import(pathToFileURL(join(serverDir, 'entry-server.js')).href)) as ServerEntry;
    const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;
    const shell = readFileSync(join(outDir, 'index.html'), 'utf8');
    const pagesDir = join(outDir, prerenderedDir);
    mkdirSync(pagesDir, { recursive: true });
    const index: PrerenderedPages = {};
    for (const page of entry.prerenderedPages) {
      const rendered = await entry.renderPage(page.path);
      const links = routeHeadLinks(manifest, page.module, config.base);
      writeFileSync(join(pagesDir, page.file), pageDocument(shell, { ...rendered, links }));
      index[page.path] = page.file;
    }
    writeFileSync(join(pagesDir, prerenderedIndex), `${JSON.stringify(index, null, 2)}\n`);
  } finally {
    rmSync(serverDir, { recursive: true, force: true });
  }
}

/** The prerendered page for a request path, or null; read from a built dist (pages.json). */
export function prerenderedFileFor(pages: PrerenderedPages, pathname: string): string | null {
  const file = Object.hasOwn(pages, pathname) ? pages[pathname] : undefined;
  return file ? `${prerenderedDir}/${file}` : null;
}

export function readPrerenderedPages(distDir: string): PrerenderedPages {
  const path = join(distDir, prerenderedDir, prerenderedIndex);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as PrerenderedPages) : {};
}

export function prerenderPublicPages(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'qw:prerender-public-pages',
    configResolved(resolved) {
      config = resolved;
    },
    async closeBundle() {
      // Only after the browser build; the server build this starts runs the same config.
      if (config.command !== 'build' || config.build.ssr) return;
      await prerender(config);
    },
    // `vite preview` (the web tests' site) serves the prerendered pages as the gateway does.
    configurePreviewServer(server) {
      const pages = readPrerenderedPages(resolve(server.config.root, server.config.build.outDir));
      server.middlewares.use((request: IncomingMessage, _response: ServerResponse, next: () => void) => {
        const [pathname = '/', query] = (request.url ?? '/').split('?');
        const file = request.method === 'GET' || request.method === 'HEAD' ? prerenderedFileFor(pages, pathname) : null;
        if (file) request.url = `/${file}${query === undefined ? '' : `?${query}`}`;
        next();
      });
    },
  };
}
