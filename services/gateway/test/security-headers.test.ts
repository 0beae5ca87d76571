import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ label: 'headers', listen: true });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

/**
 * Every answer is read to its end (through a copy, so callers may still read it): an asset left
 * unread stays half-sent in the socket, and the gateway's close then waits for it forever (the
 * file's afterAll timed out in a CI run).
 */
const get = async (path: string) => {
  const answer = await fetch(`${stack.publicUrl}${path}`);
  await answer.clone().arrayBuffer();
  return answer;
};

describe('security headers', () => {
  it('sends a strict policy with every page: no inline script, no framing, origin-only referrers', async () => {
    // '/' and '/pricing' are prerendered pages (issue #24), the others the shell.
    for (const path of ['/', '/pricing', '/app/personal/devices', '/login']) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("connect-src 'self' http://100.64.0.254;");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      // Plain http here: no HSTS (a browser would pin localhost to https).
      expect(page.headers.get('strict-transport-security')).toBeNull();
    }
  });

  it('has the page itself run no inline script or style the policy would block', async () => {
    for (const path of ['/', '/pricing', '/faq', '/about', '/support', '/servers', '/login']) {
      const html = await (await get(path)).text();
      expect(html, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html, path).not.toMatch(/\son[a-z]+="/);
      expect(html, path).not.toMatch(/<[^>]+\sstyle="/);
    }
  });

  it('revalidates index.html on every load and caches the hashed assets for a year', async () => {
    const html = await get('/');
    expect(html.headers.get('cache-control')).toBe('no-cache');
    expect((await get('/index.html')).headers.get('cache-control')).toBe('no-cache');
    expect((await get('/pricing')).headers.get('cache-control')).toBe('no-cache');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(await html.text())?.[1];
    expect(asset).toBeDefined();
    expect((await get(asset!)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('puts the same policy on API answers, and keeps readiness and metrics off the public port', async () => {
    const api = await get('/api/health');
    expect(api.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Refusals and the unknown too: the headers are set before any route answers.
    for (const [path, status] of [
      ['/api/devices', 401],
      ['/api/no-such-route', 404],
    ] as const) {
      const refused = await get(path);
      expect(refused.status, path).toBe(status);
      expect(refused.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      expect(refused.headers.get('x-frame-options'), path).toBe('DENY');
      expect(refused.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // Unknown paths get the web app (client routing), never the operational answers.
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      const answer = await get(path);
      expect(answer.headers.get('content-type'), path).toContain('text/html');
      expect(await answer.text(), path).not.toMatch(/qw_|process_cpu|"checks"/);
    }
  });
});

describe('HSTS', () => {
  it('is sent when the public address is https', async () => {
    const secure = await startStack({ label: 'hsts', gatewayEnv: { PUBLIC_URL: 'https://vpn.example' } });
    try {
      const answer = await secure.app.inject({ method: 'GET', url: '/api/health' });
      expect(answer.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.stop();
    }
  }, 60_000);
});
