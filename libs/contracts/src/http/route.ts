import { Type, type Static, type TSchema } from 'typebox';
import type { OrganizationManagerAction } from '../organizations.ts';

/**
 * An HTTP route of the gateway, as one value: method, path, who may call it, and the schemas of
 * its params, query, body and every answer. The gateway registers routes from these (it writes
 * no schema of its own), OpenAPI is generated from them, and the web takes its types from them,
 * so a shape is written once.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Who a route serves, enforced by the gateway's route table before the handler runs (see
 * services/gateway/src/http/route-access.ts) and declared in OpenAPI from the same value: anyone
 * (`public`), a signed-in person (`signed-in`), a signed-in person or the holder of a one-time
 * link (`signed-in-or-link`: the link is checked by provisioning), a platform admin (`admin`),
 * Stripe (`webhook`, signature checked by billing), or a person by their role in the organization
 * the route's `:id` names (`OrganizationAccess`). Services check their own data again whatever the
 * gate let through.
 */
export type RouteAccess = 'public' | 'signed-in' | 'signed-in-or-link' | 'admin' | 'webhook' | OrganizationAccess;

/**
 * An organization's route: its members (`member`), or its owners and admins (`manager`). Anyone
 * else learns nothing of it (404 "Organization not found."); a member asking what only managers
 * may is told "Only owners and admins can <action>." (403). The words are the same ones identity
 * answers with, from `organizationRefusal` (libs/contracts organizations.ts).
 */
export type OrganizationAccess =
  | { organization: 'member' }
  | { organization: 'manager'; action: OrganizationManagerAction };

/** The access of a route any member of its organization may call. */
export const organizationMembers: OrganizationAccess = { organization: 'member' };

/** The access of a route for the organization's owners and admins; `action` names what they do. */
export function organizationManagers(action: OrganizationManagerAction): OrganizationAccess {
  return { organization: 'manager', action };
}

export function isOrganizationAccess(access: RouteAccess): access is OrganizationAccess {
  return typeof access === 'object';
}

/** A route's access as one word, for tables and test names: `organization-member`, `organization-manager`. */
export function accessName(access: RouteAccess): string {
  return isOrganizationAccess(access) ? `organization-${access.organization}` : access;
}

export type ResponseSchemas = { [status: number]: TSchema };

export type HttpRoute<
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  R extends ResponseSchemas = ResponseSchemas,
> = {
  /**
   * The operation's stable name in OpenAPI (a generated client's method name): camelCase, unique,
   * the contract's own name without `Route`. Renaming it breaks clients, so it never changes.
   */
  operationId: string;
  method: HttpMethod;
  url: string;
  summary: string;
  tags: readonly string[];
  access: RouteAccess;
  params?: P;
  querystring?: Q;
  body?: B;
  /** Every answer the route gives, by status; errors are the shared error body. */
  response: R;
};

export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends ResponseSchemas = ResponseSchemas,
>(route: HttpRoute<P, Q, B, R>): HttpRoute<P, Q, B, R> {
  return route;
}

/** Every error answer: a stable code (libs/contracts errors.ts) and a message a person can read. */
export const ErrorResponseSchema = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

/** A 204's body. */
export const NoContentSchema = Type.Null();

/** The body a route answers with this status, for the web's fetchers. */
export type RouteAnswer<R extends HttpRoute, Status extends keyof R['response'] = 200> = Static<
  R['response'][Status] & TSchema
>;
/** The body a route takes. */
export type RouteBody<R extends HttpRoute> =
  R extends HttpRoute<infer _P, infer _Q, infer B> ? (B extends TSchema ? Static<B> : never) : never;
/** The query a route takes. */
export type RouteQuery<R extends HttpRoute> =
  R extends HttpRoute<infer _P, infer Q> ? (Q extends TSchema ? Static<Q> : never) : never;
