import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { notFound, type HttpApp } from '@qw/platform/http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Serves the built web app; any GET outside /api that matches no file gets index.html (client
 * routing). index.html is revalidated on every load (it names the current build's files); the
 * files under /assets carry a content hash in their names, so they never change and are cached
 * for a year.
 */
export async function registerWebApp(app: HttpApp, webDist: string): Promise<boolean> {
  if (!existsSync(path.join(webDist, 'index.html'))) return false;
  await app.register(fastifyStatic, {
    root: webDist,
    wildcard: false,
    index: ['index.html'],
    cacheControl: false,
    setHeaders: (reply, file) => reply.header('cache-control', cacheControlFor(path.relative(webDist, file))),
  });
  return true;
}

export function cacheControlFor(file: string): string {
  if (file === 'index.html' || !file) return 'no-cache';
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
