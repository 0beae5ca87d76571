import {
  AppError,
  isOrganizationAccess,
  organizationNotFound,
  organizationRefusal,
  requireAdmin,
  requireUserId,
  type Caller,
  type OrganizationRole,
  type RouteAccess,
} from '@qw/contracts';
import { isUuid } from './ids.ts';

/** What the gate knows of whoever sent the request, once `identifyCaller` has run. */
export type Requester = {
  caller: Caller;
  /** Identity could not say what this person may do now (see `identifyCaller`). */
  authorityUnknown?: AppError | undefined;
  /** Their role in each organization they belong to; undefined when identity could not say. */
  organizations?: ReadonlyMap<string, OrganizationRole> | undefined;
  /** The route's path parameters (an organization route names its organization in `id`). */
  params?: unknown;
};

/**
 * The organization an organization route's `:id` names, in the form identity keeps it. A malformed
 * id names nothing of anyone's: the same 404 as an organization that is not yours.
 */
export function organizationIdOf(raw: string): string {
  if (!isUuid(raw)) throw organizationNotFound();
  return raw.toLowerCase();
}

/**
 * The route table's one decision: may this requester reach a route declared with this access, or
 * which refusal do they get (401 not_signed_in, 403 forbidden, or 503 while identity cannot say
 * whether an admin still is one). Everything before the handler runs, so a refused request asks
 * no service. API tokens with scopes (a later issue) are decided here too, from the token's
 * scopes and the route's, so no handler ever checks a right of its own.
 */
export function accessRefusal(access: RouteAccess, requester: Requester): AppError | undefined {
  const { caller } = requester;
  if (isOrganizationAccess(access)) {
    const signedOut = refusal(() => requireUserId(caller));
    // Identity could not say which organizations are the person's: the service that owns the
    // organization decides from its own records, as it does whatever the gate let through.
    if (signedOut || !requester.organizations) return signedOut;
    const raw = (requester.params as { id?: unknown } | undefined)?.id;
    const id = typeof raw === 'string' && isUuid(raw) ? raw.toLowerCase() : undefined;
    const role = id === undefined ? null : (requester.organizations.get(id) ?? null);
    return organizationRefusal(role, access) ?? undefined;
  }
  switch (access) {
    case 'public':
    case 'webhook':
    // Anyone may try; provisioning checks the link itself, and without a session or a link the
    // handler answers not_signed_in before asking anyone.
    case 'signed-in-or-link':
      return undefined;
    case 'signed-in':
      return refusal(() => requireUserId(caller));
    case 'admin':
      // Who is not signed in hears that first; rights nobody could confirm are no rights.
      return refusal(() => requireUserId(caller)) ?? requester.authorityUnknown ?? refusal(() => requireAdmin(caller));
  }
}

/** The same checks (and words) the services apply again on their side (libs/contracts rpc.ts). */
function refusal(check: () => unknown): AppError | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

/** How OpenAPI states the same access: public routes need nothing (`[]`), the others a bearer token or a link. */
export function openApiSecurity(access: RouteAccess): Array<Record<string, string[]>> {
  if (isOrganizationAccess(access)) return [{ bearer: [] }];
  switch (access) {
    case 'public':
    case 'webhook':
      return [];
    case 'signed-in':
    case 'admin':
      return [{ bearer: [] }];
    case 'signed-in-or-link':
      return [{ bearer: [] }, { configLink: [] }];
  }
}
