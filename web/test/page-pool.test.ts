import type { Browser, Page } from 'playwright-core';
import { tunnelCheckUrl } from '@qw/contracts';
import { describe, expect, it } from 'vitest';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import type { Site } from './support/site';

/**
 * The browser tests' page pool (support/browser.ts): a page handed back by `context.close()` is
 * the next test's only when nothing of the last test can reach it.
 */
let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

async function leaveTraces(page: Page): Promise<void> {
  await page.goto(`${site.url}/pricing`);
  await page.evaluate(() => {
    localStorage.setItem('trace', 'local');
    sessionStorage.setItem('trace', 'session');
  });
  await page.context().addCookies([{ name: 'trace', value: 'cookie', url: site.url }]);
  await page.goto(`${site.url}/faq`);
  // Written as the test's last page goes, as React Router saves its scroll positions.
  await page.evaluate(() => addEventListener('pagehide', () => sessionStorage.setItem('unload-trace', 'session')));
  // A route of the test's own: /about answered by the test.
  await page.route(
    (url) => url.pathname === '/about',
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>routed</h1>' }),
  );
}

describe('pages handed back between tests', () => {
  it('come back with no cookie, storage, route, listener or history of the last test, at the size asked', async () => {
    const first = await openPage(browser, { width: 1280 });
    await leaveTraces(first.page);
    // Counts only the next test's own request: the last page's may still be loading as it is handed back.
    let heard = 0;
    first.page.on('request', (request) => {
      if (request.url().includes('next-test')) heard += 1;
    });
    await first.context.close();

    const second = await openPage(browser, { width: 390, colorScheme: 'dark' });
    expect(second.page).toBe(first.page);
    expect(second.page.url()).toBe('about:blank');
    expect(second.page.viewportSize()).toEqual({ width: 390, height: 740 });
    expect(await second.context.cookies()).toEqual([]);
    await second.page.goto(`${site.url}/about?next-test`);
    expect(await second.page.locator('h1').innerText()).not.toBe('routed');
    expect(heard).toBe(0);
    expect(
      await second.page.evaluate(() => [
        localStorage.getItem('trace'),
        sessionStorage.getItem('trace'),
        sessionStorage.getItem('unload-trace'),
        document.cookie.includes('trace'),
        history.length,
        matchMedia('(prefers-color-scheme: dark)').matches,
      ]),
    ).toEqual([null, null, null, false, 2, true]);
    // Behind the first page of the test, only the blank page the reset left: none of the last test's.
    await second.page.goBack();
    expect(second.page.url()).toBe('about:blank');
    await second.context.close();
  });

  it('are not handed back after anything a reset cannot undo, nor after a second site or page', async () => {
    const cases: Array<(opened: Awaited<ReturnType<typeof openPage>>) => Promise<unknown>> = [
      ({ page }) => page.addInitScript(() => undefined),
      ({ context }) => context.addInitScript(() => undefined),
      ({ page }) => page.clock.install(),
      ({ page }) => page.setExtraHTTPHeaders({ 'x-test': '1' }),
      ({ context }) => context.route('**/nothing', (route) => route.abort()),
      async ({ page }) => page.setDefaultTimeout(1_000),
      ({ context }) => context.newPage(),
      async ({ page }) => {
        await page.goto(`${site.url}/faq`);
        await page.goto(`${site.url.replace('127.0.0.1', 'localhost')}/faq`);
      },
    ];
    for (const [index, leave] of cases.entries()) {
      const opened = await openPage(browser);
      await leave(opened);
      await opened.context.close();
      const next = await openPage(browser);
      expect(next.page, `case ${index}`).not.toBe(opened.page);
      expect(opened.page.isClosed(), `case ${index}`).toBe(true);
      await next.context.close();
    }
  });
});

describe("the tests' browser", () => {
  it("fails the node's check address in its own resolver, and a page's route still answers for it", async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`${site.url}/pricing`);
    // Failed before any connection is tried: no packet leaves for the check address.
    const failed = page.waitForEvent('requestfailed', (request) => request.url() === tunnelCheckUrl);
    const fetched = await page.evaluate(
      (url) =>
        fetch(url).then(
          () => 'answered',
          () => 'failed',
        ),
      tunnelCheckUrl,
    );
    expect(fetched).toBe('failed');
    expect((await failed).failure()?.errorText).toBe('net::ERR_NAME_NOT_RESOLVED');
    await page.route(tunnelCheckUrl, (route) =>
      route.fulfill({ status: 200, headers: { 'access-control-allow-origin': '*' }, body: 'routed' }),
    );
    expect(await page.evaluate((url) => fetch(url).then((answer) => answer.text()), tunnelCheckUrl)).toBe('routed');
    await context.close();
  });
});
