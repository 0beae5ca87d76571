import helmet, { type HelmetOptions } from 'helmet';
import { tunnelCheckUrl } from '@qw/contracts';
import type { HttpApp } from '@qw/platform';

/**
 * Headers on every answer. The web app runs no inline script (Vite emits modules as files), so
 * the policy allows scripts, styles, fonts and connections from this origin only (and the tunnel
 * check's address, which only a request through a Quietwire tunnel reaches), and images
 * also as data: URLs (QR codes). No page may be framed (the Devices page must not be
 * click-jacked). HSTS only when the public address is https (a browser would otherwise pin
 * plain http://localhost to https). Referrers leave with the origin only, never a path.
 */
function securityHeaders(publicUrl: string): HelmetOptions {
  const https = publicUrl.startsWith('https://');
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        // "Am I protected?" asks the tunnel-only check address every node answers on (issue #25).
        connectSrc: ["'self'", new URL(tunnelCheckUrl).origin],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  };
}

/**
 * The headers above on every answer (API, pages, files, errors and the not-found fallback):
 * helmet's middleware, built once. @fastify/helmet built it anew on every request (the policy's
 * directives parsed and checked each time): 3.8% of a device list's CPU under load (issue #24).
 */
export function addSecurityHeaders(app: HttpApp, publicUrl: string): void {
  const setHeaders = helmet(securityHeaders(publicUrl));
  app.addHook('onRequest', (request, reply, done) => {
    setHeaders(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
