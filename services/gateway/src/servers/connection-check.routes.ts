import { connectionCheckRoute, egressServersRpc, type ConnectionCheckAnswer, type EgressServer } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { canonicalAddress } from '@qw/wireguard';
import { clientAddress } from '../auth/client-address.ts';
import { addRoute } from '../http/add-route.ts';
import { sharedAnswer } from '../http/shared-answer.ts';

/** How long one list of the servers' egress addresses answers every check. */
export const egressListCacheSeconds = 5;

/**
 * What the connection check answers for a request from `source` (the client address as fastify
 * derived it under TRUST_PROXY): protected, with the server, when it is one of the servers'
 * egress addresses; not protected when the address is unknown (the client has gone). Pure, so
 * the rule is tested without a network.
 */
export function connectionCheck(source: string | undefined, servers: readonly EgressServer[]): ConnectionCheckAnswer {
  const address = source === undefined ? null : canonicalAddress(source);
  const server = address === null ? undefined : servers.find((s) => s.egress.includes(address));
  if (!server) return { protected: false, server: null, resolvers: [] };
  return {
    protected: true,
    server: { name: server.name, city: server.city, region: server.region },
    resolvers: server.resolvers,
  };
}

/**
 * "Am I protected?" over HTTPS (issue #25), the way a VPN's own check page works: a request that
 * left through one of our servers arrives from that server's egress address. The list of
 * addresses comes from provisioning (server facts; cached a few seconds) and the comparison is
 * made here, so the visitor's address goes to no service, no log and no table. `request.ip`
 * believes X-Forwarded-For only from the proxies TRUST_PROXY names. The answer is the
 * requester's own, so nothing may keep it (no-store).
 */
export function registerConnectionCheckRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const servers = sharedAnswer(egressListCacheSeconds, () => deps.rpc.request(egressServersRpc, {}));

  addRoute(app, connectionCheckRoute, async (request, reply) => {
    const { servers: list } = await servers();
    return reply.header('cache-control', 'no-store').send(connectionCheck(clientAddress(request), list));
  });
}
