import { fillSubject, peersSampled } from '@qw/contracts';
import { createEnvelope } from '@qw/platform';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '@qw/testkit';
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
 * Issue #26 in Chromium against the real services: an operator marks a person as a test account on
 * their page, and the console-wide "Hide test accounts" switch (remembered in the browser) takes
 * exactly that person off the Overview's Users tile and the Users list, their device off the
 * Telemetry page, their peer off the Servers card's counts (counted apart, labelled) and their
 * sign-up, first payment and MRR off the Analytics page (its visits, anonymous, stay whole and it says so); at
 * 1280 and 390 px, with no sideways scrolling and no serious axe violations.
 */
let stack: Stack;
let browser: Browser;
const tester = uniqueEmail('tester');
let testerId: string;
const nodeName = 'eu-testacc-1';
const deviceName = 'Tester laptop';

const visitsNote = 'Visits include test accounts: page views are counted without knowing who made them.';
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
  stack = await startWebStack('webtestacc', { devices: true, analytics: true });
  browser = await launchBrowser();
  await verifiedAccountViaApi(stack, adminEmail);
  await registerTestNode(stack, nodeName);
  await personalCustomerViaApi(stack, tester);
  const login = await apiCall(stack, 'POST', '/api/auth/login', { email: tester, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.data)}`);
  testerId = login.data.user.id as string;
  // The tester's one device, which the node reports connected: a Telemetry row and a peer.
  const added = await apiCall(
    stack,
    'POST',
    '/api/devices',
    { name: deviceName, platform: 'linux' },
    login.data.access_token as string,
  );
  if (added.status !== 201) throw new Error(`add device: ${added.status} ${JSON.stringify(added.data)}`);
  const node = await stack.connectNode(nodeName);
  const telemetryDb = stack.services.telemetry!.db;
  const rows = async (table: 'device_keys' | 'device_latest_telemetry') =>
    Number(
      (
        await telemetryDb
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  await eventually(async () => (await rows('device_keys')) === 1, 15_000, 100);
  const envelope = createEnvelope(peersSampled, {
    sampledAt: new Date().toISOString(),
    peers: [
      {
        publicKey: added.data.device.public_key as string,
        latestHandshake: Math.floor(Date.now() / 1000),
        rxBytes: 5_000_000,
        txBytes: 700_000,
        maskedEndpoint: '203.0.113.0/24',
      },
    ],
  });
  await node.bus.js.publish(fillSubject(peersSampled.subject, { node: nodeName }), JSON.stringify(envelope), {
    msgID: envelope.id,
  });
  await eventually(async () => (await rows('device_latest_telemetry')) === 1, 15_000, 100);
  // A public page's view, for the funnel's visits (anonymous: nobody's share).
  const visit = await apiCall(stack, 'POST', '/api/visits', { path: '/' });
  if (visit.status !== 204) throw new Error(`visit: ${visit.status}`);
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
    // The traffic chart says whose traffic it shows.
    await admin.page.getByText("test accounts' devices left out", { exact: false }).waitFor();
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

  for (const width of [1280, 390]) {
    it(`leaves the test account's device off the Telemetry page and counts its peer apart on Servers (${width} px)`, async () => {
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/telemetry`);
      const devices = admin.page.locator('section[aria-labelledby="admin-telemetry-devices"]');
      await devices.getByText(deviceName).first().waitFor();
      expect(await toggle(admin.page).isChecked()).toBe(false);
      await toggle(admin.page).check();
      await devices.getByText('No telemetry yet.').waitFor();
      expect(await devices.getByText(deviceName).count()).toBe(0);
      await admin.page.getByText("Test accounts' devices are left out", { exact: false }).waitFor();
      expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-test-accounts-telemetry');

      await admin.page.goto(`${stack.publicUrl}/admin/servers`);
      const card = admin.page.locator('li.admin-server').filter({ hasText: nodeName });
      await admin.page.getByText('not counted: 1 peer of test accounts.', { exact: false }).waitFor();
      await expect
        .poll(() => card.locator('.admin-metric', { hasText: 'Test accounts' }).locator('dd').innerText())
        .toBe('1');
      await expect(card.locator('.admin-metric', { hasText: 'Peers placed' }).locator('dd').innerText()).resolves.toBe(
        '0',
      );
      expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-test-accounts-servers');
      // Shown again: the peer is placed like any other, and nothing is counted apart.
      await toggle(admin.page).uncheck();
      await expect
        .poll(() => card.locator('.admin-metric', { hasText: 'Peers placed' }).locator('dd').innerText())
        .toBe('1');
      expect(await card.getByText('Test accounts').count()).toBe(0);
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }

  for (const width of [1280, 390]) {
    it(`leaves the test customer out of the Analytics figures, and says the visits still include them (${width} px)`, async () => {
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/analytics`);
      await admin.page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
      expect(await toggle(admin.page).isChecked()).toBe(false);
      // The operator and the tester signed up today, the tester bought Personal; one visit to /
      // (counted within seconds).
      const funnel = admin.page.getByRole('region', { name: 'Funnel', exact: true });
      const mrr = admin.page.getByRole('group', { name: 'MRR', exact: true });
      await funnel.getByText(/In 60 days: 1 visits, 2 sign-ups, 1 first payments\./).waitFor({ timeout: 20_000 });
      await expect.poll(() => mrr.innerText()).toMatch(/\b1 paying customer/);
      expect(await funnel.getByText(visitsNote).count()).toBe(0);
      await toggle(admin.page).check();
      await funnel.getByText(/In 60 days: 1 visits, 1 sign-ups, 0 first payments\./).waitFor();
      await expect.poll(() => mrr.innerText()).toMatch(/\$0\.00[\s\S]*\b0 paying customers/);
      await funnel.getByText(visitsNote).waitFor();
      expect(await noSidewaysScroll(admin.page)).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-test-accounts-analytics');
      await toggle(admin.page).uncheck();
      await funnel.getByText(/In 60 days: 1 visits, 2 sign-ups/).waitFor();
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }
});
