import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { installFakeAnalyticsApi, installFakeSession } from './support/fake-analytics-api';
import type { Site } from './support/site';

/** The public layout reports one view per navigation to a counted page, and nothing elsewhere. */

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

/** Long enough for a report the page would send, since it is sent when the page renders. */
const settle = (page: Page) => page.waitForTimeout(750);

describe('public page views', () => {
  it('sends one POST /api/visits {path} per public page shown, without cookies or a token', async () => {
    const { context, page } = await openPage(browser);
    await context.addCookies([{ name: 'qw_probe', value: 'present', url: site.url }]);
    const session = await installFakeSession(page, 'signed-out');

    await page.goto(`${site.url}/pricing`);
    await page.locator('h1').waitFor();
    await expect.poll(() => session.visits.length).toBe(1);
    await settle(page);
    expect(session.visits.map((visit) => visit.body)).toEqual([{ path: '/pricing' }]);
    const headers = session.visits[0]!.headers;
    expect(headers.cookie).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    expect(headers['content-type']).toBe('application/json');

    // A link inside the app is a navigation too.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQ' }).click();
    await page.waitForURL(`${site.url}/faq`);
    await expect.poll(() => session.visits.length).toBe(2);
    // Moving to a #section (same document) is no new view; loading the page again is.
    await page.goto(`${site.url}/faq#refunds`);
    await page.evaluate(() => window.history.pushState(null, '', '/faq#billing'));
    await settle(page);
    expect(session.visits).toHaveLength(2);
    await page.reload();
    await page.locator('h1').waitFor();
    await expect.poll(() => session.visits.length).toBe(3);
    expect(session.visits.map((visit) => visit.body)).toEqual([
      { path: '/pricing' },
      { path: '/faq' },
      { path: '/faq' },
    ]);

    // Sign-in and the areas are never counted (signed out, /app/… lands on /login).
    await page.goto(`${site.url}/login`);
    await page.locator('h1').waitFor();
    await page.goto(`${site.url}/app/personal/overview`);
    await page.waitForURL(/\/login/);
    await page.goto(`${site.url}/no-such-page`);
    await page.locator('h1').waitFor();
    await settle(page);
    expect(session.visits).toHaveLength(3);
    await context.close();
  });

  it('sends none from /app or /admin for a signed-in admin', async () => {
    const { context, page } = await openPage(browser);
    const session = await installFakeSession(page, 'admin');
    await installFakeAnalyticsApi(page);
    await page.goto(`${site.url}/admin/analytics`);
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await page.goto(`${site.url}/app/personal/overview`);
    await page.locator('h1').first().waitFor();
    await settle(page);
    expect(session.visits).toEqual([]);
    await context.close();
  });

  it('keeps the page working when the report fails', async () => {
    const { context, page } = await openPage(browser);
    await installFakeSession(page, 'signed-out');
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.route('**/api/visits', (route) => route.abort('connectionrefused'));
    await page.goto(`${site.url}/about`);
    await page.locator('h1').waitFor();
    await settle(page);
    expect(errors).toEqual([]);
    await expect(page.locator('h1').innerText()).resolves.toBe('A VPN with fewer moving parts');
    await context.close();
  });
});
