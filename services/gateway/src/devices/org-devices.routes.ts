import {
  AppError,
  createOrgDeviceRoute,
  createOrgDeviceRpc,
  listOrgDevicesRpc,
  orgDeviceOverviewRpc,
  orgDevicesRoute,
  orgOverviewRoute,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { forwardedAnswers } from '../http/forwarded.ts';
import { organizationIdOf } from '../http/route-access.ts';
import { isUuid } from '../http/ids.ts';

/** A malformed assignee is nobody in the organization. */
function assigneeId(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!isUuid(raw)) {
    throw new AppError('validation_failed', 'The assignee must be a member of this organization.', {
      field: 'assignee_id',
    });
  }
  return raw.toLowerCase();
}

/**
 * An organization's devices (spec §2 business Overview and Devices, §5, §7): each route is one
 * request to provisioning (the list's page, person and search fields passed on as the route's
 * schema checked them), made once the route table has found the caller a member (which
 * devices each member sees and may add for whom is provisioning's to decide). The devices themselves are
 * changed through /api/devices/{id} (devices.routes.ts), where the same access policy applies.
 */
export function registerOrgDeviceRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  const overview = forwardedAnswers(orgOverviewRoute, orgDeviceOverviewRpc, rpc);
  addRoute(app, orgOverviewRoute, async (request, reply) =>
    overview(
      reply.header('cache-control', 'no-store'),
      { org_id: organizationIdOf(request.params.id) },
      request.caller,
    ),
  );

  const devicesPage = forwardedAnswers(orgDevicesRoute, listOrgDevicesRpc, rpc);
  addRoute(app, orgDevicesRoute, async (request, reply) => {
    const { page, per_page, assignee_id, q } = request.query;
    const query = {
      org_id: organizationIdOf(request.params.id),
      ...(page !== undefined ? { page } : {}),
      ...(per_page !== undefined ? { per_page } : {}),
      ...(assignee_id !== undefined ? { assignee_id: assignee_id.toLowerCase() } : {}),
      ...(q !== undefined ? { q } : {}),
    };
    return devicesPage(reply.header('cache-control', 'no-store'), query, request.caller);
  });

  addRoute(app, createOrgDeviceRoute, async (request, reply) => {
    const { caller } = request;
    const { assignee_id, ...body } = request.body;
    const assignee = assigneeId(assignee_id);
    const device = await rpc.request(
      createOrgDeviceRpc,
      { ...body, org_id: organizationIdOf(request.params.id), ...(assignee ? { assignee_id: assignee } : {}) },
      caller,
    );
    return reply.status(201).send(device);
  });
}
