import { Type } from 'typebox';
import { submitContactRpc } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addressKey } from '../auth/caller.ts';

export function registerContactRoutes(app: HttpApp, deps: { rpc: RpcClient; addressHashKey: string }): void {
  app.post('/api/contact', {
    schema: {
      tags: ['support'], summary: 'The contact form: stored, then mailed to support',
      body: Type.Object({ email: Type.String({ maxLength: 254 }), message: Type.String({ maxLength: 10_000 }) }),
      response: { 201: Type.Object({ id: Type.String() }) },
    },
  }, async (request, reply) => {
    const stored = await deps.rpc.request(submitContactRpc, { ...request.body, address_key: addressKey(request, deps.addressHashKey) });
    return reply.status(201).send(stored);
  });
}
