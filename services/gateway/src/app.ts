import cookie from '@fastify/cookie';
import jwt, { type TokenOrHeader } from '@fastify/jwt';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import { authorityRpc, isBackendService, type BackendService } from '@qw/contracts';
import { callerTokenSigner, createHttpApp, type BusConnection, type HttpApp, type RpcClient } from '@qw/platform';
import { trustProxyOption, type GatewayConfig } from './config.ts';
import { registerHealthRoutes } from './health/health.routes.ts';
import { registerWebApp, spaFallback } from './web-app.ts';
import { accessTokenAudience, checkOrigin, identifyCaller, type AccessClaims } from './auth/caller.ts';
import { rememberedVerifications } from './auth/verified-tokens.ts';
import { AuthorityCache } from './auth/authority-cache.ts';
import { reusedAssertions } from './auth/assertion-cache.ts';
import { accessTokenSecrets } from './auth/access-token-secrets.ts';
import { registerAuthRoutes } from './auth/auth.routes.ts';
import { registerAccountRoutes } from './account/account.routes.ts';
import { registerContactRoutes } from './contact/contact.routes.ts';
import { billingRouteSettings, registerBillingRoutes } from './billing/billing.routes.ts';
import { registerDeviceRoutes } from './devices/devices.routes.ts';
import { registerOrgDeviceRoutes } from './devices/org-devices.routes.ts';
import { registerOrganizationRoutes } from './organizations/organizations.routes.ts';
import { registerAnalyticsRoutes } from './analytics/analytics.routes.ts';
import { VisitCounter } from './analytics/visit-counter.ts';
import { registerAdminAccountRoutes } from './admin/accounts.routes.ts';
import { registerAdminPersonRoutes } from './admin/person.routes.ts';
import { registerAdminFleetRoutes } from './admin/fleet.routes.ts';
import { registerPublicServerRoutes } from './servers/public-servers.routes.ts';
import { registerConnectionCheckRoutes } from './servers/connection-check.routes.ts';
import { registerServerLifecycleRoutes } from './admin/server-lifecycle.routes.ts';
import { registerEnrolmentRoutes } from './nodes/enrolment.routes.ts';
import { addSecurityHeaders } from './security-headers.ts';
import { trackRoutes } from './http/add-route.ts';

export type GatewayDeps = { bus: BusConnection; rpc: RpcClient; logger: Logger };

/** The only HTTP surface of the product: /api/* routes, OpenAPI at /api/docs, and the web app. */
export async function buildGateway(config: GatewayConfig, deps: GatewayDeps): Promise<HttpApp> {
  let webAvailable = false;
  const app = createHttpApp({
    logger: deps.logger,
    readiness: [],
    operational: false,
    notFound: spaFallback(() => webAvailable),
    fastify: { trustProxy: trustProxyOption(config.TRUST_PROXY), bodyLimit: 256 * 1024 },
  });

  trackRoutes(app);
  addSecurityHeaders(app, config.PUBLIC_URL);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Quietwire API',
        version: '0.1.0',
        description: 'The HTTP API of the Quietwire VPN service.',
      },
      servers: [{ url: config.PUBLIC_URL, description: 'This gateway' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          configLink: {
            type: 'apiKey',
            in: 'query',
            name: 'token',
            description: "A one-time download link's token (POST /api/devices/{id}/config-link)",
          },
        },
      },
    },
  });
  // Swagger UI sets its own policy on its pages (it needs inline styles the web app never does).
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  await app.register(cookie);
  const secrets = accessTokenSecrets(config.JWT_SECRET, config.JWT_SECRET_PREVIOUS);
  await app.register(jwt, {
    secret: {
      private: secrets.signing,
      public: async (_request: unknown, token: TokenOrHeader) =>
        secrets.verifying('header' in token ? token.header.kid : token.kid),
    },
    // The key is chosen by the token's header (its `kid`), which the key callback sees only so.
    decode: { complete: true },
    sign: { algorithm: 'HS256', aud: accessTokenAudience, kid: secrets.kid },
    verify: { algorithms: ['HS256'], allowedAud: accessTokenAudience },
  });
  app.decorateRequest('caller', null as never);
  app.addHook(
    'onRequest',
    checkOrigin(config.PUBLIC_URL, (path) => path === '/api/billing/webhook'),
  );
  // Rights come from identity (at most a second old), not from the access token alone; an
  // assertion lives as long as a request may take (its RPC timeout) plus a margin for clocks.
  const authority = new AuthorityCache((question) => deps.rpc.request(authorityRpc, question));
  const assertionSeconds = Math.ceil(config.RPC_TIMEOUT_MS / 1000) + 5;
  // The same person with the same rights is served with one assertion for a few seconds, never
  // so long that a request made with it could outlive it (its RPC timeout, and a second for clocks).
  const assert = reusedAssertions(callerTokenSigner(config.CALLER_TOKEN_PRIVATE_KEY, assertionSeconds), {
    reuseMs: assertionSeconds * 1000 - config.RPC_TIMEOUT_MS - 2000,
  });
  app.addHook(
    'preHandler',
    identifyCaller(
      assert,
      (claims, token, options) =>
        authority.get({ user_id: claims.sub, ...(claims.sid ? { session_id: claims.sid } : {}) }, token, options),
      rememberedVerifications<AccessClaims>(),
    ),
  );

  const session = {
    accessTokenSeconds: config.ACCESS_TOKEN_SECONDS,
    secureCookies: config.NODE_ENV === 'production' || config.PUBLIC_URL.startsWith('https://'),
  };
  registerAuthRoutes(app, { rpc: deps.rpc, session, addressHashKey: config.ADDRESS_HASH_KEY });
  registerAccountRoutes(app, { rpc: deps.rpc, session });
  registerContactRoutes(app, { rpc: deps.rpc, addressHashKey: config.ADDRESS_HASH_KEY });
  registerBillingRoutes(app, { rpc: deps.rpc, ...billingRouteSettings(config) });
  registerDeviceRoutes(app, { rpc: deps.rpc });
  registerOrgDeviceRoutes(app, { rpc: deps.rpc });
  registerOrganizationRoutes(app, { rpc: deps.rpc });
  const visits = new VisitCounter({ bus: deps.bus, logger: deps.logger, flushEveryMs: config.VISITS_FLUSH_MS });
  visits.start();
  app.addHook('onClose', () => visits.stop());
  registerAnalyticsRoutes(app, { rpc: deps.rpc, visits, addressHashKey: config.ADDRESS_HASH_KEY });
  registerAdminAccountRoutes(app, { rpc: deps.rpc });
  registerAdminPersonRoutes(app, { rpc: deps.rpc });
  registerAdminFleetRoutes(app, { rpc: deps.rpc });
  registerPublicServerRoutes(app, { rpc: deps.rpc });
  registerConnectionCheckRoutes(app, { rpc: deps.rpc });
  registerServerLifecycleRoutes(app, { rpc: deps.rpc, publicUrl: config.PUBLIC_URL });
  registerEnrolmentRoutes(app, { rpc: deps.rpc, addressHashKey: config.ADDRESS_HASH_KEY });

  const services = config.GATEWAY_SERVICES.split(',').filter(isBackendService) as BackendService[];
  registerHealthRoutes(app, { rpc: deps.rpc, services, timeoutMs: Math.min(config.RPC_TIMEOUT_MS, 2000) });

  webAvailable = await registerWebApp(app, config.WEB_DIST);
  if (!webAvailable) deps.logger.warn('web app not built; run `make web` (pages are not served until then)');
  return app;
}

/**
 * The gateway's internal listener (INTERNAL_HTTP_HOST:INTERNAL_HTTP_PORT, loopback by default):
 * `/healthz`, `/readyz` and `/metrics`, which say too much to be on the public port.
 */
export function buildOperationsApp(deps: GatewayDeps): HttpApp {
  return createHttpApp({
    logger: deps.logger,
    readiness: [{ name: 'nats', check: async () => void (await deps.bus.nc.flush()) }],
  });
}
