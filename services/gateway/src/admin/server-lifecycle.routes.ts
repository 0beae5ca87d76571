import {
  addServerRoute,
  adminAddNodeRpc,
  adminNewEnrolmentRpc,
  adminRetireNodeRpc,
  newEnrolmentRoute,
  retireServerRoute,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';
import { nodeInstallCommand } from '../nodes/install-command.ts';

/**
 * The console's server lifecycle (issue #23): add a server with its one-time enrolment token and
 * the install command, a new token for a server still waiting for its host, and retirement.
 * Platform admins only (the contracts say `access: 'admin'`); provisioning checks again. A token
 * is in no answer but these two, which no cache keeps.
 */
export function registerServerLifecycleRoutes(app: HttpApp, deps: { rpc: RpcClient; publicUrl: string }): void {
  const { rpc, publicUrl } = deps;
  const noStore = { 'cache-control': 'no-store' };
  const withCommand = (enrolment: { token: string; expires_at: string }) => ({
    ...enrolment,
    install_command: nodeInstallCommand(publicUrl, enrolment.token),
  });

  addRoute(app, addServerRoute, async (request, reply) => {
    const { server, enrolment } = await rpc.request(adminAddNodeRpc, request.body, request.caller);
    return reply
      .status(201)
      .headers(noStore)
      .send({ server, enrolment: withCommand(enrolment) });
  });

  addRoute(app, newEnrolmentRoute, async (request, reply) => {
    const enrolment = await rpc.request(adminNewEnrolmentRpc, { node_id: request.params.id }, request.caller);
    return reply.headers(noStore).send(withCommand(enrolment));
  });

  addRoute(app, retireServerRoute, async (request) =>
    rpc.request(adminRetireNodeRpc, { node_id: request.params.id }, request.caller),
  );
}
