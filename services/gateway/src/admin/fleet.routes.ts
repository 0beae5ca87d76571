import {
  adminDeviceActionRoute,
  adminDeviceActionRpc,
  adminDeviceCountRpc,
  adminDevicesRoute,
  adminDevicesRpc,
  adminDrainNodeRpc,
  adminLatestRpc,
  adminOverviewRoute,
  adminPeopleCountsRpc,
  adminServersRoute,
  adminServerHistoryRpc,
  adminServersRpc,
  adminTelemetryRoute,
  adminTrafficRpc,
  drainServerRoute,
  serverHistoryRoute,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { forwardedAnswers } from '../http/forwarded.ts';

/**
 * The operator console's fleet (spec §2 Overview, Devices, Telemetry, Servers; §7
 * `POST /api/admin-device`): platform admins only, refused here before any service is asked, and
 * each service checks the caller assertion's admin flag again. Each route is one request to the
 * service that owns the answer, except the Overview, whose tiles belong to three owners: it asks
 * them at once and puts their answers side by side.
 */
export function registerAdminFleetRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  addRoute(app, adminOverviewRoute, async (request, reply) => {
    const { caller } = request;
    // "Hide test accounts" (issue #26): identity leaves their people out, provisioning their
    // devices, telemetry their devices connected now and their devices' hours of traffic (each
    // service asks identity who they are).
    const excludeTest = request.query?.exclude_test === true;
    const [people, devices, traffic] = await Promise.all([
      rpc.request(adminPeopleCountsRpc, { exclude_test: excludeTest }, caller),
      rpc.request(adminDeviceCountRpc, { exclude_test: excludeTest }, caller),
      rpc.request(adminTrafficRpc, { exclude_test: excludeTest }, caller),
    ]);
    return reply.header('cache-control', 'no-store').send({
      users: people.users,
      organizations: people.organizations,
      devices: devices.devices,
      devices_breakdown: devices.breakdown,
      active_devices: traffic.active_devices,
      traffic: traffic.traffic,
    });
  });

  const devices = forwardedAnswers(adminDevicesRoute, adminDevicesRpc, rpc);
  addRoute(app, adminDevicesRoute, async (request, reply) =>
    devices(reply.header('cache-control', 'no-store'), request.query ?? {}, request.caller),
  );

  // Spec §7: `{action, deviceId}`; `x-admin-email` is ignored (admin comes from the session only).
  addRoute(app, adminDeviceActionRoute, async (request) => {
    const { device } = await rpc.request(adminDeviceActionRpc, request.body, request.caller);
    return { ok: true as const, device };
  });

  addRoute(app, adminTelemetryRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(adminLatestRpc, request.query ?? {}, request.caller)),
  );

  addRoute(app, adminServersRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(adminServersRpc, { exclude_test: request.query?.exclude_test === true }, request.caller)),
  );

  addRoute(app, serverHistoryRoute, async (request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .send(await rpc.request(adminServerHistoryRpc, { node_id: request.params.id }, request.caller)),
  );

  addRoute(app, drainServerRoute, async (request) =>
    rpc.request(adminDrainNodeRpc, { node_id: request.params.id, draining: request.body.draining }, request.caller),
  );
}
