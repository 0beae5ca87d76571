import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import { repoRoot } from './support/paths';
import {
  adminEmail,
  apiCall,
  newPage,
  password,
  personalCustomerViaApi,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';
import { photograph } from './support/photos';

/**
 * Issue #13 in Chromium against the real services (identity, billing, provisioning, telemetry,
 * analytics, the gateway serving web/dist): an admin signs in, lands on the Overview with the real
 * counts, suspends a customer's device from Devices and sees it inactive after the list reloads;
 * the owner's own Devices page then shows it suspended. Then every console page at 1280 and 390 px:
 * no sideways scrolling, every tab on screen, a screenshot in var/screens.
 */

let stack: Stack;
let browser: Browser;
const customer = uniqueEmail('journey-customer');
const deviceName = 'Journey laptop';
const screensDir = join(repoRoot, 'var/screens');

beforeAll(async () => {
  stack = await startWebStack('webadmin', { devices: true, analytics: true });
  await registerTestNode(stack, 'eu-journey-1');
  browser = await launchBrowser();
  await verifiedAccountViaApi(stack, adminEmail);
  await personalCustomerViaApi(stack, customer);
  const login = await apiCall(stack, 'POST', '/api/auth/login', { email: customer, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.data)}`);
  const added = await apiCall(
    stack,
    'POST',
    '/api/devices',
    { name: deviceName, platform: 'linux' },
    login.data.access_token as string,
  );
  if (added.status !== 201) throw new Error(`add device: ${added.status} ${JSON.stringify(added.data)}`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const tileValue = (page: Page, label: string) =>
  page
    .locator('a.qw-stat-tile')
    .filter({ has: page.locator('.qw-stat-tile__label', { hasText: new RegExp(`^${label}$`) }) })
    .locator('.qw-stat-tile__value');

async function shoot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screensDir, `real-${name}-${width}.png`), { fullPage: true });
}

describe('the operator console on the real stack', () => {
  it('admin signs in → Overview counts → suspends the customer’s device → the owner sees it suspended', async () => {
    const admin = await newPage(browser);
    await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
    await admin.page.waitForURL((url) => url.pathname === '/admin' || url.pathname === '/admin/overview');
    await admin.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // Real counts: the admin and the customer, their one device, nobody connected, no organization.
    await expect.poll(() => tileValue(admin.page, 'Users').innerText(), { timeout: 15_000 }).toBe('2');
    await expect(tileValue(admin.page, 'Devices').innerText()).resolves.toBe('1');
    await expect(tileValue(admin.page, 'Organizations').innerText()).resolves.toBe('0');
    await expect(tileValue(admin.page, 'Active Devices').innerText()).resolves.toBe('0');

    // Devices, through the tab: the customer's device is active; its row action suspends it.
    await admin.page.getByRole('navigation', { name: 'Admin area' }).getByRole('link', { name: 'Devices' }).click();
    await admin.page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    const row = admin.page.locator('tbody tr', { hasText: deviceName });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain(customer);
    await expect(row.locator('td[data-label="Active"]').innerText()).resolves.toContain('Yes');
    const reloads = () =>
      admin.page.waitForResponse(
        (response) => new URL(response.url()).pathname === '/api/admin/devices' && response.status() === 200,
      );
    const reloaded = reloads();
    await row.getByRole('button', { name: `Suspend ${deviceName}` }).click();
    await reloaded;
    await expect.poll(() => row.locator('td[data-label="Active"]').innerText()).toContain('No');
    await row.getByRole('button', { name: `Activate ${deviceName}` }).waitFor();
    expect(admin.errors).toEqual([]);
    await admin.close();

    // The owner, in a browser context of their own: the personal Devices page shows it suspended.
    const owner = await newPage(browser);
    await signInThroughPage(owner.page, stack.publicUrl, customer);
    await owner.page.goto(`${stack.publicUrl}/app/personal/devices`);
    await owner.page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    const own = owner.page.locator('tbody tr', { has: owner.page.locator(`input[value="${deviceName}"]`) });
    await expect.poll(() => own.count(), { timeout: 15_000 }).toBe(1);
    // The page's own table (not stacked into cards at this width): the cell under its Status header.
    const headers = await owner.page.locator('table thead th').allInnerTexts();
    const statusColumn = headers.findIndex((header) => /^Status\b/.test(header.trim()));
    expect(statusColumn, headers.join(' | ')).toBeGreaterThanOrEqual(0);
    // Suspended by the operator: the row says so and by whom, and its person cannot lift it (issues #20, #26).
    await expect
      .poll(() => own.locator(':scope > th, :scope > td').nth(statusColumn).innerText())
      .toBe('Suspended\nSuspended by Quietwire support: contact support');
    const activate = own.getByRole('button', { name: 'Activate', exact: true });
    await activate.waitFor();
    expect(await activate.isDisabled()).toBe(true);
    expect(owner.errors).toEqual([]);
    await owner.close();
  }, 120_000);

  const pages = [
    { path: '/admin/overview', heading: 'Overview', name: 'admin-overview' },
    { path: '/admin/accounts', heading: 'Accounts', name: 'admin-accounts' },
    { path: '/admin/devices', heading: 'Devices', name: 'admin-devices' },
    { path: '/admin/telemetry', heading: 'Telemetry', name: 'admin-telemetry' },
    { path: '/admin/servers', heading: 'Servers', name: 'admin-servers' },
    { path: '/admin/analytics', heading: 'Analytics', name: 'admin-analytics' },
  ] as const;

  for (const width of [1280, 390]) {
    it(`every console page at ${width} px: all tabs on screen, no sideways scrolling`, async () => {
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      for (const { path, heading, name } of pages) {
        await admin.page.goto(`${stack.publicUrl}${path}`);
        await admin.page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await expect
          .poll(() => admin.page.locator('main .qw-skeleton').count(), { timeout: 15_000, message: path })
          .toBe(0);
        await admin.page.waitForLoadState('networkidle');
        const overflow = await admin.page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${path} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
        for (const tab of await admin.page.getByRole('navigation', { name: 'Admin area' }).getByRole('link').all()) {
          const box = await tab.boundingBox();
          expect(box, `${path}: ${await tab.innerText()} on screen`).not.toBeNull();
          expect(box!.x).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width).toBeLessThanOrEqual(width);
        }
        if (width === 1280) await expect(seriousAxeViolations(admin.page), path).resolves.toEqual([]);
        await shoot(admin.page, name);
      }
      expect(admin.errors).toEqual([]);
      await admin.close();
    }, 120_000);
  }
});
