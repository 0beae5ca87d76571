import { publicServersRoute, publicServersRpc } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { sharedAnswer } from '../http/shared-answer.ts';

/** How long one answer of the public list serves every visitor (and browsers and proxies keep it). */
export const publicServersCacheSeconds = 5;

/**
 * The public /servers list (issue #23). Anyone may read it, so one answer from provisioning serves
 * every request for a few seconds: a crowd of visitors asks provisioning once per period.
 */
export function registerPublicServerRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const answer = sharedAnswer(publicServersCacheSeconds, () => deps.rpc.request(publicServersRpc, {}));

  addRoute(app, publicServersRoute, async (_request, reply) =>
    reply.header('cache-control', `public, max-age=${publicServersCacheSeconds}`).send(await answer()),
  );
}
