import {
  AppError,
  addAdminEmailRoute,
  addAdminEmailRpc,
  adminAuditRoute,
  adminAuditRpc,
  adminEmailsRoute,
  adminOperatorActionsRpc,
  adminPageSizes,
  adminEmailsRpc,
  adminOrganizationsRoute,
  adminOrganizationsRpc,
  adminReactivateOrganizationRpc,
  adminSuspendOrganizationRpc,
  adminUserPlansRpc,
  adminUsersRoute,
  adminUsersRpc,
  reactivateOrganizationRoute,
  removeAdminEmailRoute,
  removeAdminEmailRpc,
  suspendOrganizationRoute,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { mergeAuditPages, parseAuditCursor } from './merge-audit.ts';
import { isUuid } from '../http/ids.ts';

/** A malformed id names no organization: the same 404 as one that does not exist. */
function orgId(raw: string): string {
  if (!isUuid(raw)) throw new AppError('not_found', 'Organization not found.');
  return raw.toLowerCase();
}

/**
 * The operator console's Accounts (spec §2): people, organizations, the admin list and the
 * operators' audit (identity's and provisioning's entries in one list). Each route's contract says
 * `access: 'admin'`, so addRoute refuses anyone but a platform admin from the verified session alone
 * (no header or body field counts) before any service is asked; identity and billing check the
 * caller assertion again, and identity the admin list at that moment.
 */
export function registerAdminAccountRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;
  const noStore = { 'cache-control': 'no-store' };

  addRoute(app, adminUsersRoute, async (request, reply) => {
    const { caller } = request;
    const people = await rpc.request(adminUsersRpc, request.query ?? {}, caller);
    // Each person's own plan is billing's: one question for the page.
    const { plans } = await rpc.request(adminUserPlansRpc, { user_ids: people.rows.map((row) => row.id) }, caller);
    const planOf = new Map(plans.map((entry) => [entry.user_id, entry.plan_code]));
    const rows = people.rows.map((row) => ({ ...row, plan: planOf.get(row.id) ?? null }));
    return reply.headers(noStore).send({ ...people, rows });
  });

  addRoute(app, adminOrganizationsRoute, async (request, reply) => {
    const { caller } = request;
    return reply.headers(noStore).send(await rpc.request(adminOrganizationsRpc, request.query ?? {}, caller));
  });

  addRoute(app, suspendOrganizationRoute, async (request) => {
    const { caller } = request;
    return rpc.request(
      adminSuspendOrganizationRpc,
      { org_id: orgId(request.params.id), reason: request.body.reason },
      caller,
    );
  });

  addRoute(app, reactivateOrganizationRoute, async (request) => {
    const { caller } = request;
    return rpc.request(adminReactivateOrganizationRpc, { org_id: orgId(request.params.id) }, caller);
  });

  addRoute(app, adminEmailsRoute, async (request, reply) => {
    const { caller } = request;
    return reply.headers(noStore).send(await rpc.request(adminEmailsRpc, {}, caller));
  });

  addRoute(app, addAdminEmailRoute, async (request, reply) => {
    const { caller } = request;
    return reply.status(201).send(await rpc.request(addAdminEmailRpc, { email: request.body.email }, caller));
  });

  addRoute(app, removeAdminEmailRoute, async (request, reply) => {
    const { caller } = request;
    await rpc.request(removeAdminEmailRpc, { email: request.params.email }, caller);
    return reply.status(204).send();
  });

  // One list of the operators' own actions from its two owners: identity's (the admin list,
  // organizations) and provisioning's (devices, nodes), merged newest first.
  addRoute(app, adminAuditRoute, async (request, reply) => {
    const { caller } = request;
    const perPage = request.query?.per_page ?? adminPageSizes.default;
    const before = request.query?.before ? parseAuditCursor(request.query.before) : undefined;
    const asked = { per_page: perPage, ...(before ? { before } : {}) };
    const [accounts, fleet] = await Promise.all([
      rpc.request(adminAuditRpc, asked, caller),
      rpc.request(adminOperatorActionsRpc, asked, caller),
    ]);
    const fleetRows = fleet.rows.map((action) => {
      // The device's or node's name (as it was) is the target; its id goes with the details.
      const { name, ...details } = action.details;
      return {
        id: action.id,
        at: action.at,
        actor_id: action.actor_id,
        actor_email: action.actor_email ?? '',
        kind: action.kind,
        target: typeof name === 'string' ? name : action.target_id,
        details: { ...details, [`${action.target_kind}_id`]: action.target_id },
      };
    });
    return reply.headers(noStore).send(mergeAuditPages([accounts, { rows: fleetRows, total: fleet.total }], perPage));
  });
}
