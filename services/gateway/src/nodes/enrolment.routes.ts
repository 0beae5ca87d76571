import { readFile } from 'node:fs/promises';
import { enrolNodeRoute, enrolNodeRpc } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addressKey } from '../auth/caller.ts';
import { addRoute } from '../http/add-route.ts';

/** The script the install command runs, kept in the repository's scripts/ (and the gateway's image). */
export const nodeInstallScript = new URL('../../../../scripts/node-install.sh', import.meta.url);

/**
 * A new server's host: `GET /node-install.sh` (the script the console's install command pipes to
 * bash) and `POST /api/nodes/enrol`, where the host exchanges its one-time token for the node's
 * bus credentials. Public: the token is the proof; failed attempts are limited per address
 * (provisioning counts them by the address's keyed hash), and the token is never logged.
 */
export function registerEnrolmentRoutes(app: HttpApp, deps: { rpc: RpcClient; addressHashKey: string }): void {
  addRoute(app, enrolNodeRoute, async (request, reply) => {
    const answer = await deps.rpc.request(enrolNodeRpc, {
      ...request.body,
      address_key: addressKey(request, deps.addressHashKey),
    });
    return reply.header('cache-control', 'no-store').send(answer);
  });

  // Not part of the API: a file for `curl | bash`, left out of the OpenAPI document.
  app.get('/node-install.sh', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/x-shellscript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await readFile(nodeInstallScript, 'utf8')),
  );
}
