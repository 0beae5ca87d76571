import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpApp } from '@qw/platform/http';
import { createLogger } from '@qw/platform/logger';
import { addSecurityHeaders } from '../../../services/gateway/src/security-headers.ts';
import { registerWebApp, spaFallback } from '../../../services/gateway/src/web-app.ts';
import { withWebBuild } from './global-setup.ts';

/** A served copy of the web app (as `startSite` in site.ts gives). */
export type Site = { url: string; close(): Promise<void> };

/**
 * The built web app served by the gateway's own web serving (services/gateway/src/web-app.ts:
 * prerendered pages, the shell for every other path, the same cache headers) under the gateway's
 * security headers, without the API and the services behind it. `prerendered: false` serves every
 * page as the empty shell, as before issue #24 (the LCP benchmark's baseline).
 *
 * Serves its own copy of web/dist, so a rebuild by another test process cannot pull files away.
 */
export async function startGatewaySite(options: { prerendered?: boolean } = {}): Promise<Site> {
  const snapshot = mkdtempSync(join(tmpdir(), 'qw-web-gateway-'));
  await withWebBuild((dist) => cpSync(dist, snapshot, { recursive: true }));
  const app = createHttpApp({
    logger: createLogger({ service: 'web-site', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    readiness: [],
    operational: false,
    notFound: spaFallback(() => true),
  });
  addSecurityHeaders(app, 'http://127.0.0.1');
  await registerWebApp(app, snapshot, { prerendered: options.prerendered ?? true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      rmSync(snapshot, { recursive: true, force: true });
    },
  };
}
