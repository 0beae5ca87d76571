import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { notFound, type HttpApp } from '@qw/platform/http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Serves the built web app; any GET outside /api that matches no file gets index.html (client routing). */
export async function registerWebApp(app: HttpApp, webDist: string): Promise<boolean> {
  if (!existsSync(path.join(webDist, 'index.html'))) return false;
  await app.register(fastifyStatic, { root: webDist, wildcard: false, index: ['index.html'], maxAge: '1h' });
  return true;
}

export function spaFallback(webAvailable: () => boolean) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const wantsPage = request.method === 'GET' && !pathname.startsWith('/api/') && pathname !== '/api' && !path.extname(pathname);
    if (wantsPage && webAvailable()) {
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    }
    return notFound(request, reply);
  };
}
