import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ErrorResponseSchema, isOrganizationAccess, type HttpRoute } from '@qw/contracts';
import type { HttpApp } from '@qw/platform';
import { accessRefusal, openApiSecurity } from './route-access.ts';

type Shape<T> = T extends TSchema ? Static<T> : undefined;

export type RouteRequest<R extends HttpRoute> =
  R extends HttpRoute<infer P, infer Q, infer B>
    ? FastifyRequest<{ Params: Shape<P>; Querystring: Shape<Q>; Body: Shape<B> }>
    : never;

/** Any answer the route declares, or the reply when the handler sent it itself (a status, a file). */
type RouteResult<R extends HttpRoute> = Static<R['response'][keyof R['response']] & TSchema> | FastifyReply;

/** A route as the gateway registered it: what the route-table and permission tests read. */
export type RegisteredRoute = {
  method: string;
  url: string;
  contract: HttpRoute | undefined;
  response: Record<string, unknown> | undefined;
};

const tables = new WeakMap<object, RegisteredRoute[]>();

/** Records every route registered on `app` from now on (fastify's onRoute hook). */
export function trackRoutes(app: HttpApp): void {
  const table: RegisteredRoute[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (options) => {
    for (const method of [options.method].flat()) {
      table.push({
        method,
        url: options.url,
        contract: options.config?.contract,
        response: (options.schema as { response?: Record<string, unknown> } | undefined)?.response,
      });
    }
  });
}

export function routeTable(app: HttpApp): readonly RegisteredRoute[] {
  return tables.get(app) ?? [];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract a route was made from (libs/contracts/src/http). */
    contract?: HttpRoute;
  }
}

/**
 * Registers a route from its contract: the schemas of its params, query, body and answers are the
 * contract's own objects (the gateway declares none inline), errors answer the shared error body,
 * and its declared access is both enforced and stated in OpenAPI (`security`, `operationId`).
 * The access check is the route's own preHandler, which fastify runs after the app's (the one
 * that identifies the caller) and before the handler: a refused request asks no service, and a
 * handler only ever meets a caller the route admits.
 */
export function addRoute<R extends HttpRoute>(
  app: HttpApp,
  route: R,
  handler: (request: RouteRequest<R>, reply: FastifyReply) => Promise<RouteResult<R>>,
  options: {
    /**
     * How this route answers someone who is not signed in, when not with the 401 (a browser
     * opening a page-like route is sent to sign in); undefined keeps the 401.
     */
    signedOut?: (request: RouteRequest<R>, reply: FastifyReply) => FastifyReply | undefined;
  } = {},
): void {
  app.route({
    method: route.method,
    url: route.url,
    config: { contract: route },
    schema: {
      operationId: route.operationId,
      tags: [...route.tags],
      summary: route.summary,
      security: openApiSecurity(route.access),
      ...(route.params ? { params: route.params } : {}),
      ...(route.querystring ? { querystring: route.querystring } : {}),
      ...(route.body ? { body: route.body } : {}),
      response: { ...route.response, '4xx': ErrorResponseSchema, '5xx': ErrorResponseSchema },
    },
    preHandler: async (request, reply) => {
      let refused = accessRefusal(route.access, request);
      if (refused && isOrganizationAccess(route.access) && request.reaskAuthority) {
        // A remembered answer may be a second old: refuse only on one asked for this request.
        await request.reaskAuthority();
        refused = accessRefusal(route.access, request);
      }
      if (!refused) return;
      const answered = refused.code === 'not_signed_in' ? options.signedOut?.(request as never, reply) : undefined;
      if (answered) return answered;
      throw refused;
    },
    // The request's types come from the contract above; fastify's own inference cannot see through it.
    handler: handler as never,
  });
}
