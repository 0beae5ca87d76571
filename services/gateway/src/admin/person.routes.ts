import {
  AppError,
  adminEndSessionsRpc,
  adminPersonBillingRpc,
  adminPersonDevicesRpc,
  adminPersonRoute,
  adminPersonRpc,
  adminRefundLatestRpc,
  adminResendVerificationRpc,
  adminPersonSuspensionRpc,
  adminPersonTestMarkRpc,
  markTestAccountRoute,
  endPersonSessionsRoute,
  reactivatePersonRoute,
  suspendPersonRoute,
  refundPersonLatestRoute,
  resendPersonVerificationRoute,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { askUntil } from '../http/ask-until.ts';
import { isUuid } from '../http/ids.ts';

/** A malformed id names nobody: the same 404 as an id nobody has. */
export function personId(raw: string): string {
  if (!isUuid(raw)) throw new AppError('not_found', 'No account has this id.');
  return raw.toLowerCase();
}

/**
 * Issue #26, the operator console's page of one person and its actions. Each route's contract says
 * `access: 'admin'` (addRoute refuses anyone else from the verified session alone); each service
 * asked checks the caller assertion's admin flag again. The page's parts have three owners, asked
 * once each, at the same time; identity's `not_found` (nobody has this id) answers for the page.
 */
export function registerAdminPersonRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  addRoute(app, adminPersonRoute, async (request, reply) => {
    const { caller } = request;
    const asked = { user_id: personId(request.params.id) };
    const [identity, billing, provisioning] = await Promise.all([
      rpc.request(adminPersonRpc, asked, caller),
      rpc.request(adminPersonBillingRpc, asked, caller),
      rpc.request(adminPersonDevicesRpc, asked, caller),
    ]);
    return reply.header('cache-control', 'no-store').send({ ...identity, ...billing, ...provisioning });
  });

  addRoute(app, endPersonSessionsRoute, async (request) =>
    rpc.request(adminEndSessionsRpc, { user_id: personId(request.params.id) }, request.caller),
  );

  // Identity keeps the reason and tells provisioning, which holds the person's devices off.
  addRoute(app, suspendPersonRoute, async (request) =>
    rpc.request(
      adminPersonSuspensionRpc,
      { user_id: personId(request.params.id), suspended: true, reason: request.body.reason },
      request.caller,
    ),
  );

  addRoute(app, reactivatePersonRoute, async (request) =>
    rpc.request(adminPersonSuspensionRpc, { user_id: personId(request.params.id), suspended: false }, request.caller),
  );

  addRoute(app, markTestAccountRoute, async (request) =>
    rpc.request(
      adminPersonTestMarkRpc,
      { user_id: personId(request.params.id), is_test: request.body.is_test },
      request.caller,
    ),
  );

  addRoute(app, resendPersonVerificationRoute, async (request) =>
    rpc.request(adminResendVerificationRpc, { user_id: personId(request.params.id) }, request.caller),
  );

  // Billing refunds (or refuses, 409, changing nothing) and records which operator asked, with the
  // refund; identity writes the operators' audit line from billing's refund event, so no second
  // call here can fail after the money went back. The answer then waits (read-your-writes, as for
  // an organization's purchase) until identity shows that line, so the page the operator reads
  // next lists it; a line still on its way after the wait comes with the next read.
  addRoute(app, refundPersonLatestRoute, async (request) => {
    const { caller } = request;
    const userId = personId(request.params.id);
    // Nobody with this id: 404 before billing is asked.
    await rpc.request(adminPersonRpc, { user_id: userId }, caller);
    const { refund_id: refundId, ...refunded } = await rpc.request(adminRefundLatestRpc, { user_id: userId }, caller);
    await askUntil(async () => {
      const person = await rpc.request(adminPersonRpc, { user_id: userId }, caller);
      return person.operator_actions.some(
        (action) => action.kind === 'user.refunded' && action.details.refund_id === refundId,
      );
    }).catch(() => false);
    return refunded;
  });
}
