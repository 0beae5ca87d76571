import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { preview } from 'vite';
import { withWebBuild } from './global-setup';
import { webDir } from './paths';

export type Site = { url: string; close(): Promise<void> };

/**
 * Serves the built web/dist with the SPA fallback on a free local port. With QW_SITE_URL set, the
 * tests run against that site instead (the real gateway) and close() does nothing.
 *
 * Each server gets its own copy of the build, so another test process rebuilding web/dist (after
 * a source change mid-run) cannot pull files from under it.
 */
export async function startSite(): Promise<Site> {
  const external = process.env.QW_SITE_URL;
  if (external) return { url: external.replace(/\/+$/, ''), close: async () => {} };

  const snapshot = mkdtempSync(join(tmpdir(), 'qw-web-dist-'));
  await withWebBuild((dist) => cpSync(dist, snapshot, { recursive: true }));
  const server = await preview({
    root: webDir,
    configFile: join(webDir, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir: snapshot },
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  });
  const address = server.httpServer.address() as AddressInfo | null;
  if (!address || typeof address === 'string') throw new Error('The preview server is not listening');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      await server.close();
      rmSync(snapshot, { recursive: true, force: true });
    },
  };
}
