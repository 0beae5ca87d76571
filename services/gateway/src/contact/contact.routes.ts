import { contactRoute, submitContactRpc } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addressKey } from '../auth/caller.ts';
import { addRoute } from '../http/add-route.ts';

export function registerContactRoutes(app: HttpApp, deps: { rpc: RpcClient; addressHashKey: string }): void {
  addRoute(app, contactRoute, async (request, reply) => {
    const stored = await deps.rpc.request(submitContactRpc, {
      ...request.body,
      address_key: addressKey(request, deps.addressHashKey),
    });
    return reply.status(201).send(stored);
  });
}
