import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { notFound, type HttpApp } from '@qw/platform/http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Where the web build lists its prerendered pages (web/scripts/prerender.ts): path → file under prerendered/. */
const prerenderedDir = 'prerendered';
const prerenderedIndex = path.join(prerenderedDir, 'pages.json');

export type WebAppOptions = {
  /**
   * Serve the public pages the build prerendered (default). False serves every page as the empty
   * shell that the browser renders, as before issue #24: the LCP benchmark's baseline.
   */
  prerendered?: boolean;
};

/**
 * Serves the built web app. The public pages the build prerendered (/, /pricing, /faq, /about,
 * /support, /servers; listed in prerendered/pages.json) get their own HTML, readable before any
 * script runs; any other GET outside /api that matches no file gets index.html, the empty shell
 * (client routing). HTML is revalidated on every load (it names the current build's files); the
 * files under /assets carry a content hash in their names, so they never change and are cached
 * for a year.
 */
export async function registerWebApp(app: HttpApp, webDist: string, options: WebAppOptions = {}): Promise<boolean> {
  if (!existsSync(path.join(webDist, 'index.html'))) return false;
  await app.register(fastifyStatic, {
    root: webDist,
    wildcard: false,
    // '/' is registered below: the prerendered home page when there is one.
    index: false,
    cacheControl: false,
    setHeaders: (reply, file) => reply.header('cache-control', cacheControlFor(path.relative(webDist, file))),
  });
  const pages = options.prerendered === false ? {} : readPrerenderedPages(webDist);
  const pageRoutes: Record<string, string> = { '/': 'index.html' };
  for (const [route, file] of Object.entries(pages)) pageRoutes[route] = path.posix.join(prerenderedDir, file);
  for (const [route, file] of Object.entries(pageRoutes)) {
    app.get(route, (_request, reply) => reply.header('cache-control', 'no-cache').sendFile(file));
  }
  return true;
}

/** The build's prerendered pages; none when the build has none (or a file is missing: a half-written build). */
function readPrerenderedPages(webDist: string): Record<string, string> {
  const indexFile = path.join(webDist, prerenderedIndex);
  if (!existsSync(indexFile)) return {};
  const listed = JSON.parse(readFileSync(indexFile, 'utf8')) as Record<string, unknown>;
  const pages: Record<string, string> = {};
  for (const [route, file] of Object.entries(listed)) {
    if (!route.startsWith('/') || route.startsWith('/api') || typeof file !== 'string' || file.includes('/')) continue;
    if (existsSync(path.join(webDist, prerenderedDir, file))) pages[route] = file;
  }
  return pages;
}

export function cacheControlFor(file: string): string {
  if (!file || file.endsWith('.html')) return 'no-cache';
  if (file.startsWith(`assets${path.sep}`)) return 'public, max-age=31536000, immutable';
  return 'public, max-age=3600';
}

export function spaFallback(webAvailable: () => boolean) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const wantsPage =
      request.method === 'GET' && !pathname.startsWith('/api/') && pathname !== '/api' && !path.extname(pathname);
    if (wantsPage && webAvailable()) {
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    }
    return notFound(request, reply);
  };
}
