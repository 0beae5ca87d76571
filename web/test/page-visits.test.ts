import { countedPagePaths } from '@qw/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordVisit } from '../src/features/analytics/api/record-visit';
import { countedVisitPath } from '../src/features/analytics/page-visits';
import { setAccessTokenProvider } from '../src/lib/api-client';

describe('which locations count as a public page view', () => {
  it('counts every page of countedPagePaths, as itself', () => {
    for (const path of countedPagePaths) expect(countedVisitPath(path)).toBe(path);
  });

  it('matches the way the router does: one trailing slash and any letter case', () => {
    expect(countedVisitPath('/pricing/')).toBe('/pricing');
    expect(countedVisitPath('/FAQ')).toBe('/faq');
    expect(countedVisitPath('/About/')).toBe('/about');
    expect(countedVisitPath('/')).toBe('/');
  });

  it('never counts the areas, the sign-in pages, unknown pages or deeper paths', () => {
    const never = [
      '/app',
      '/app/personal/overview',
      '/app/business/billing',
      '/admin',
      '/admin/analytics',
      '/login',
      '/forgot-password',
      '/reset-password',
      '/auth/callback',
      '/post-login',
      '/post-checkout',
      '/dashboard',
      '/test-checkout/cs_test_1',
      '/billing/test-portal',
      '/design-system',
      '/pricing/business',
      '/pricing//',
      '/nowhere',
      '//pricing',
      '',
    ];
    for (const path of never) expect(countedVisitPath(path), path).toBeNull();
  });
});

describe('the visit report', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    setAccessTokenProvider(null);
  });

  it('POSTs {path} to /api/visits with keepalive, without cookies or the bearer token', async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', fetch);
    setAccessTokenProvider(() => 'a-signed-in-token');
    recordVisit('/pricing');
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/visits');
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({ path: '/pricing' });
    expect(init.keepalive).toBe(true);
    expect(init.credentials).toBe('omit');
    expect(init.headers).not.toHaveProperty('Authorization');
  });

  it('drops a failure silently', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    const fetch = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    vi.stubGlobal('fetch', fetch);
    expect(() => recordVisit('/')).not.toThrow();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"error":{"code":"internal","message":"x"}}', { status: 500 })),
    );
    recordVisit('/faq');
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.off('unhandledRejection', unhandled);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(unhandled).not.toHaveBeenCalled();
  });
});
