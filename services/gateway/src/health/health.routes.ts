import { AppError, healthRoute, healthRpc, isBackendService, type BackendService } from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addRoute } from '../http/add-route.ts';

/**
 * `GET /api/health` is ok only when a request/reply round trip to every backend service
 * succeeds, and each of them has reached its own database.
 */
export function registerHealthRoutes(
  app: HttpApp,
  deps: { rpc: RpcClient; services: BackendService[]; timeoutMs: number },
): void {
  addRoute(app, healthRoute, async (_request, reply) => {
    const results = await Promise.all(
      deps.services.filter(isBackendService).map(async (service) => {
        try {
          const answer = await deps.rpc.request(healthRpc(service), {}, undefined, { timeoutMs: deps.timeoutMs });
          return [service, { status: 'ok' as const, uptime_seconds: Math.round(answer.uptimeSeconds) }] as const;
        } catch (error) {
          const reason = error instanceof AppError ? error.code : 'internal';
          return [service, { status: 'unavailable' as const, reason }] as const;
        }
      }),
    );
    const healthy = results.every(([, result]) => result.status === 'ok');
    return reply
      .status(healthy ? 200 : 503)
      .send({ status: healthy ? 'ok' : 'unavailable', services: Object.fromEntries(results) });
  });
}
