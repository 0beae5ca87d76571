import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  adminEmail,
  apiCall,
  newPage,
  password,
  personalCustomerViaApi,
  screenshot,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';

/**
 * Issue #26 in Chromium against the real services: an operator opens a person's page from the
 * Users table and reads their profile, plan, devices, invoices, sessions and audit, at 1280 and
 * 390 px, without sideways scrolling and with no serious axe violations.
 */
let stack: Stack;
let browser: Browser;
const customer = uniqueEmail('person-page');
let customerId: string;

beforeAll(async () => {
  stack = await startWebStack('webperson', { devices: true });
  await registerTestNode(stack, 'eu-person-1');
  browser = await launchBrowser();
  await verifiedAccountViaApi(stack, adminEmail);
  await personalCustomerViaApi(stack, customer);
  const login = await apiCall(stack, 'POST', '/api/auth/login', { email: customer, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.data)}`);
  customerId = login.data.user.id as string;
  const added = await apiCall(
    stack,
    'POST',
    '/api/devices',
    { name: 'Dana MacBook F', platform: 'macos' },
    login.data.access_token as string,
  );
  if (added.status !== 201) throw new Error(`add device: ${added.status} ${JSON.stringify(added.data)}`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("a person's page in the console", () => {
  for (const width of [1280, 390]) {
    it(`opens from the Users table and shows everything about them at ${width} px`, async () => {
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/accounts`);
      await admin.page.getByRole('link', { name: customer }).click();
      await admin.page.waitForURL((url) => url.pathname === `/admin/accounts/users/${customerId}`);
      await admin.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      const section = (name: string) => admin.page.locator(`section[aria-labelledby="person-${name.toLowerCase()}"]`);
      await expect(section('Profile').innerText()).resolves.toContain(customer);
      await expect(section('Plan').innerText()).resolves.toContain('Personal');
      await expect(section('Devices').innerText()).resolves.toContain('Dana MacBook F');
      await expect(section('Devices').innerText()).resolves.toContain('eu-person-1');
      await expect(section('Invoices').innerText()).resolves.toMatch(/\$\d/);
      await expect(section('Sessions').innerText()).resolves.toMatch(/\d sessions?/);
      expect(
        await admin.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person');
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }

  it('says so for an id nobody has', async () => {
    const admin = await newPage(browser);
    await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
    await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/not-an-id`);
    await admin.page.getByText('No such account').waitFor();
    await admin.close();
  });
});
