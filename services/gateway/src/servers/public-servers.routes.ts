import { publicServersRoute, publicServersRpc, type PublicRegion } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';

/** How long one answer of the public list serves every visitor (and browsers and proxies keep it). */
export const publicServersCacheSeconds = 5;

/**
 * The public /servers list (issue #23). Anyone may read it, so one answer from provisioning serves
 * every request for a few seconds: a crowd of visitors asks provisioning once per period.
 */
export function registerPublicServerRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  let cached: { until: number; answer: Promise<{ regions: PublicRegion[] }> } | undefined;
  const answer = () => {
    const now = Date.now();
    if (cached && cached.until > now) return cached.answer;
    const asked = deps.rpc.request(publicServersRpc, {});
    const entry = { until: now + publicServersCacheSeconds * 1000, answer: asked };
    cached = entry;
    // A failed answer is not kept: the next request asks again.
    asked.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return asked;
  };

  addRoute(app, publicServersRoute, async (_request, reply) =>
    reply.header('cache-control', `public, max-age=${publicServersCacheSeconds}`).send(await answer()),
  );
}
