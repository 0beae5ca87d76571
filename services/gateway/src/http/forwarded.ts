import type { FastifyReply } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { Caller, HttpRoute, RpcContract } from '@qw/contracts';
import type { RpcClient } from '@qw/platform';

/**
 * How a route asks a forwarded RPC (`RpcClient.forward`) and sends its answer as its own,
 * unparsed, instead of parsing a list's answer and writing it again through the route's schema:
 * two more passes over every byte of it, and the objects between them for the garbage collector
 * (issue #24; docs/architecture.md has the figures). The service already wrote the answer
 * through the contract's response schema (only the fields it names). So the route must answer
 * with that same schema, or the browser would get other fields than the route declares. This is
 * checked once, when the route is registered: a route whose 200 schema differs from the
 * contract's, or a contract not marked forwarded, does not start.
 */
export function forwardedAnswers<Req extends TSchema, Res extends TSchema>(
  route: HttpRoute,
  contract: RpcContract<Req, Res>,
  rpc: Pick<RpcClient, 'forward'>,
): (reply: FastifyReply, data: Static<Req>, caller: Caller) => Promise<FastifyReply> {
  const name = `${route.method} ${route.url}`;
  if (!contract.forwarded) throw new Error(`${name}: ${contract.subject} is not a forwarded contract`);
  const declared = (route.response as Record<number, unknown>)[200];
  if (JSON.stringify(declared) !== JSON.stringify(contract.response))
    throw new Error(
      `${name}: its 200 schema is not ${contract.subject}'s response schema, so its answer cannot be forwarded`,
    );
  return async (reply, data, caller) =>
    reply.type('application/json; charset=utf-8').send((await rpc.forward(contract, data, caller)).json);
}
