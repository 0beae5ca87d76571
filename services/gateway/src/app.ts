import cookie from '@fastify/cookie';
import jwt from '@fastify/jwt';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import { isBackendService, type BackendService } from '@qw/contracts';
import { createHttpApp, type BusConnection, type HttpApp, type RpcClient } from '@qw/platform';
import type { GatewayConfig } from './config.ts';
import { registerHealthRoutes } from './health/health.routes.ts';
import { registerWebApp, spaFallback } from './web-app.ts';
import { checkOrigin, identifyCaller } from './auth/caller.ts';
import { registerAuthRoutes } from './auth/auth.routes.ts';
import { registerAccountRoutes } from './account/account.routes.ts';
import { registerContactRoutes } from './contact/contact.routes.ts';
import { registerBillingRoutes } from './billing/billing.routes.ts';
import { registerDeviceRoutes } from './devices/devices.routes.ts';

export type GatewayDeps = { bus: BusConnection; rpc: RpcClient; logger: Logger };

/** The only HTTP surface of the product: /api/* routes, OpenAPI at /api/docs, and the web app. */
export async function buildGateway(config: GatewayConfig, deps: GatewayDeps): Promise<HttpApp> {
  let webAvailable = false;
  const app = createHttpApp({
    logger: deps.logger,
    readiness: [{ name: 'nats', check: async () => void (await deps.bus.nc.flush()) }],
    notFound: spaFallback(() => webAvailable),
    fastify: { trustProxy: false, bodyLimit: 256 * 1024 },
  });

  await app.register(swagger, {
    openapi: {
      info: { title: 'Quietwire API', version: '0.1.0', description: 'The HTTP API of the Quietwire VPN service.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });

  await app.register(cookie);
  await app.register(jwt, { secret: config.JWT_SECRET, sign: { algorithm: 'HS256' }, verify: { algorithms: ['HS256'] } });
  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', checkOrigin(config.PUBLIC_URL, (path) => path === '/api/billing/webhook'));
  app.addHook('preHandler', identifyCaller);

  const session = {
    accessTokenSeconds: config.ACCESS_TOKEN_SECONDS,
    secureCookies: config.NODE_ENV === 'production' || config.PUBLIC_URL.startsWith('https://'),
  };
  registerAuthRoutes(app, { rpc: deps.rpc, session, addressHashKey: config.ADDRESS_HASH_KEY });
  registerAccountRoutes(app, { rpc: deps.rpc });
  registerContactRoutes(app, { rpc: deps.rpc, addressHashKey: config.ADDRESS_HASH_KEY });
  registerBillingRoutes(app, { rpc: deps.rpc });
  registerDeviceRoutes(app, { rpc: deps.rpc });

  const services = config.GATEWAY_SERVICES.split(',').filter(isBackendService) as BackendService[];
  registerHealthRoutes(app, { rpc: deps.rpc, services, timeoutMs: Math.min(config.RPC_TIMEOUT_MS, 2000) });

  webAvailable = await registerWebApp(app, config.WEB_DIST);
  if (!webAvailable) deps.logger.warn('web app not built; run `make web` (pages are not served until then)');
  return app;
}
