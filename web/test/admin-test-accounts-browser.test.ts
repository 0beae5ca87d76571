import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  adminEmail,
  apiCall,
  newPage,
  password,
  screenshot,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';

/**
 * Issue #26 in Chromium against the real services: an operator marks a person as a test account on
 * their page, and the console-wide "Hide test accounts" switch (remembered in the browser) takes
 * exactly that person off the Overview's Users tile and the Users list; at 1280 and 390 px, with
 * no sideways scrolling and no serious axe violations.
 */
let stack: Stack;
let browser: Browser;
const tester = uniqueEmail('tester');
let testerId: string;

const toggle = (page: Page) => page.getByRole('checkbox', { name: 'Hide test accounts' });
const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function usersShown(page: Page, expected: string): Promise<void> {
  await page.waitForFunction(
    ([selector, value]) =>
      [...document.querySelectorAll(selector!)].some(
        (tile) =>
          tile.textContent?.includes('Users') && tile.querySelector('.qw-stat-tile__value')?.textContent === value,
      ),
    ['.qw-stat-tile', expected],
  );
}

beforeAll(async () => {
  stack = await startWebStack('webtestacc', { devices: true });
  browser = await launchBrowser();
  await verifiedAccountViaApi(stack, adminEmail);
  await verifiedAccountViaApi(stack, tester);
  const login = await apiCall(stack, 'POST', '/api/auth/login', { email: tester, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.data)}`);
  testerId = login.data.user.id as string;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('test accounts in the console', () => {
  it('marks a person as a test account, and "Hide test accounts" leaves exactly them out (1280 px)', async () => {
    const admin = await newPage(browser, { width: 1280 });
    await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
    await admin.page.goto(`${stack.publicUrl}/admin/overview`);
    await usersShown(admin.page, '2');
    expect(await toggle(admin.page).isChecked()).toBe(false);

    await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/${testerId}`);
    await admin.page.getByRole('button', { name: 'Mark as test account' }).click();
    await admin.page.getByText(`${tester} is a test account now`).waitFor();
    await admin.page.getByTestId('test-account').getByText('Test account', { exact: true }).waitFor();
    await admin.page.getByRole('button', { name: 'Unmark test account' }).waitFor();
    expect(await seriousAxeViolations(admin.page)).toEqual([]);
    await screenshot(admin.page, 'admin-test-account-person');

    await admin.page.goto(`${stack.publicUrl}/admin/overview`);
    await usersShown(admin.page, '2');
    await toggle(admin.page).check();
    await usersShown(admin.page, '1');
    // Remembered in this browser: a reload keeps it on.
    await admin.page.reload();
    await usersShown(admin.page, '1');
    expect(await toggle(admin.page).isChecked()).toBe(true);
    await admin.page.goto(`${stack.publicUrl}/admin/accounts`);
    await admin.page.getByRole('link', { name: adminEmail }).waitFor();
    expect(await admin.page.getByRole('link', { name: tester }).count()).toBe(0);
    await toggle(admin.page).uncheck();
    await admin.page.getByRole('link', { name: tester }).waitFor();
    // The list says which account is a test account.
    const row = admin.page.getByRole('row', { name: new RegExp(tester) });
    await row.getByText('Test account', { exact: true }).waitFor();
    expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
    expect(admin.errors).toEqual([]);
    await admin.close();
  });

  it('fits the switch and the action at 390 px', async () => {
    const admin = await newPage(browser, { width: 390 });
    await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
    await admin.page.goto(`${stack.publicUrl}/admin/overview`);
    await toggle(admin.page).check();
    await usersShown(admin.page, '1');
    // The traffic chart says it still holds test accounts' traffic (telemetry cannot split it).
    await admin.page.getByText('test accounts included').waitFor();
    expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
    expect(await seriousAxeViolations(admin.page)).toEqual([]);
    await screenshot(admin.page, 'admin-test-accounts-overview');
    await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/${testerId}`);
    await admin.page.getByRole('button', { name: 'Unmark test account' }).waitFor();
    expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
    await screenshot(admin.page, 'admin-test-account-person');
    expect(admin.errors).toEqual([]);
    await admin.close();
  });
});
