import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser, openPage } from './support/browser';
import {
  adminEmail,
  screenshot,
  signInThroughPage,
  type Stack,
  startWebStack,
  verifiedAccountViaApi,
} from './support/real-stack';

/**
 * The Servers page and /servers against the real gateway and provisioning (issue #23): an operator
 * adds a server and reads its one-time token once, is refused a name already taken (by the field),
 * makes a new token, retires the pending server; the public page answers from the same data and
 * never lists a server that is not active.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startWebStack('serverslive', { devices: true });
  await verifiedAccountViaApi(stack, adminEmail);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('Servers page against the real backend', () => {
  it('adds a server with a one-time token, refuses a taken name by its field, makes a new token, retires it', async () => {
    const { context, page } = await openPage(browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signInThroughPage(page, stack.publicUrl, adminEmail);
    await page.goto(`${stack.publicUrl}/admin/servers`);
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    const name = `lis-${randomBytes(3).toString('hex')}`;

    const addServer = async () => {
      await page.getByRole('button', { name: 'Add server' }).click();
      const form = page.getByRole('region', { name: 'Add a server' });
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Region', { exact: true }).selectOption({ label: 'Europe' });
      await form.getByLabel('City', { exact: true }).fill('Lisbon');
      await form.getByLabel('Public endpoint', { exact: true }).fill('198.51.100.90:51820');
      await form.getByLabel('Tags', { exact: true }).fill('gaming');
      await form.getByRole('button', { name: 'Add server' }).click();
      return form;
    };

    await addServer();
    const dialog = page.getByRole('dialog', { name: `Enrol ${name}` });
    await dialog.waitFor();
    const token = (await dialog.locator('code').nth(1).innerText()).trim();
    expect(token.length).toBeGreaterThanOrEqual(20);
    await expect(dialog.locator('code').first().innerText()).resolves.toContain(token);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const card = page.locator('li.admin-server').filter({ has: page.getByRole('heading', { name, exact: true }) });
    await card.getByText('Pending enrolment', { exact: true }).waitFor();
    await expect(card.innerText()).resolves.toContain('Lisbon, Europe');
    await expect(card.innerText()).resolves.toContain('0 of 1,000 peers, low load');
    expect(await page.content()).not.toContain(token);

    // The same name again: provisioning's refusal under the Name field, nothing added.
    const form = await addServer();
    const nameField = form.getByLabel('Name', { exact: true });
    await expect.poll(() => nameField.getAttribute('aria-invalid')).toBe('true');
    const errorId = ((await nameField.getAttribute('aria-describedby')) ?? '')
      .split(' ')
      .find((id) => id.endsWith('-error'));
    await expect(page.locator(`[id="${errorId}"]`).innerText()).resolves.toContain(
      `A server named ${name} exists already`,
    );
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.locator('li.admin-server').filter({ hasText: name }).count()).resolves.toBe(1);

    // A new token replaces the first.
    await card.getByRole('button', { name: 'New enrolment token' }).click();
    await dialog.waitFor();
    const second = (await dialog.locator('code').nth(1).innerText()).trim();
    expect(second).not.toBe(token);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const refused = await fetch(`${stack.publicUrl}/api/nodes/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);

    // Retire it: no devices are on it, so it goes at once and is listed among the retired.
    await card.getByRole('button', { name: 'Retire' }).click();
    const retire = page.getByRole('dialog', { name: `Retire ${name}?` });
    await retire.getByRole('button', { name: 'Retire' }).click();
    await retire.waitFor({ state: 'hidden' });
    const retired = page.locator('details.admin-servers__retired');
    await retired.locator('summary').click();
    await retired.getByText('Retired', { exact: true }).first().waitFor();
    await expect(retired.innerText()).resolves.toContain(name);
    await screenshot(page, 'admin-servers-live');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('/servers answers from the same data and lists no server that is not active', async () => {
    const { context, page } = await openPage(browser, { width: 390 });
    const answer = page.waitForResponse((response) => response.url().endsWith('/api/servers'));
    await page.goto(`${stack.publicUrl}/servers`);
    expect((await answer).status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Server locations' }).waitFor();
    await expect.poll(() => page.locator('main .qw-skeleton').count()).toBe(0);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await expect(page.locator('main').innerText()).resolves.not.toContain('Lisbon');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'servers-live');
    await context.close();
  });
});
