import { randomBytes } from 'node:crypto';
import { createEnvelope } from '@qw/platform';
import { fillSubject, hostSampled, registerNodeRpc } from '@qw/contracts';
import { keepReporting } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser, openPage } from './support/browser';
import { screenshotDir } from './support/paths';
import {
  adminEmail,
  screenshot,
  signInThroughPage,
  type Stack,
  startWebStack,
  verifiedAccountViaApi,
} from './support/real-stack';
import { photograph } from './support/photos';

/**
 * The Servers page and /servers against the real gateway and provisioning (issue #23): an operator
 * adds a server and reads its one-time token once, is refused a name already taken (by the field),
 * makes a new token, retires the pending server; the public page answers from the same data and
 * never lists a server that is not active. A node's host samples become its card's last 24 hours.
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
  it("opens a server's last 24 hours on its card: CPU and memory, load, traffic and peers, whole at 1280 and 390 px", async () => {
    const name = `his-${randomBytes(3).toString('hex')}`;
    const { bus, rpc } = await stack.connectNode(name);
    await rpc.request(
      registerNodeRpc,
      {
        region: 'eu-central',
        endpoint: '198.51.100.91:51820',
        public_key: generateKeyPair().publicKey,
        ip: '198.51.100.91',
        tags: [],
      },
      undefined,
      { params: { node: name } },
    );
    const stopReporting = keepReporting(bus, name);
    // Telemetry keeps a node's samples once it has heard of the node from provisioning.
    await expect
      .poll(
        async () =>
          (await stack.services.telemetry!.db.selectFrom('nodes').select('id').where('name', '=', name).execute())
            .length,
      )
      .toBe(1);
    // Thirteen 5-minute buckets of the last hour and more, two samples 15 s apart in each: 1.5 MB
    // received at each sample, so 100 KB/s within a bucket and 10 KB/s across the step before it.
    const bucketStart = Math.floor(Date.now() / 300_000) * 300_000;
    let rx = 0;
    for (let minutes = 65; minutes >= 5; minutes -= 5) {
      for (const offset of [20_000, 35_000]) {
        rx += 1_500_000;
        const envelope = createEnvelope(hostSampled, {
          sampledAt: new Date(bucketStart - minutes * 60_000 + offset).toISOString(),
          cpu: 20 + minutes / 6,
          memUsed: 2 * 1024 ** 3,
          memTotal: 8 * 1024 ** 3,
          diskUsed: 1,
          diskTotal: 2,
          load1: 0.4,
          load5: 0.3,
          load15: 0.2,
          netRxBytes: rx,
          netTxBytes: rx / 2,
          peers: 40 + minutes / 5,
        });
        await bus.js.publish(fillSubject(hostSampled.subject, { node: name }), JSON.stringify(envelope), {
          msgID: envelope.id,
        });
      }
    }
    for (const width of [1280, 390]) {
      const { context, page } = await openPage(browser, { width });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await signInThroughPage(page, stack.publicUrl, adminEmail);
      await page.goto(`${stack.publicUrl}/admin/servers`);
      const card = page.locator('li.admin-server').filter({ has: page.getByRole('heading', { name, exact: true }) });
      await card.waitFor();
      const toggle = card.getByRole('button', { name: 'Last 24 hours' });
      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
      const history = card.getByRole('region', { name: `${name}: last 24 hours` });
      await history.waitFor();
      // Telemetry stores the samples as they arrive: the reported share grows to 13 of 288 buckets.
      await expect.poll(() => history.innerText()).toContain('Reported 1 h 5 min of the last 24 h (4.5 %)');
      for (const title of ['CPU and memory', 'Load (1 min)', 'Traffic', 'Peers'])
        await expect(history.getByText(title, { exact: true }).count()).resolves.toBe(1);
      await expect.poll(() => history.locator('canvas').count()).toBeGreaterThanOrEqual(4);
      await expect(history.getByRole('img').nth(0).getAttribute('aria-label')).resolves.toContain(
        'CPU: mean 26 %, peak 31 %',
      );
      await expect(history.getByRole('img').nth(3).getAttribute('aria-label')).resolves.toContain(
        'Peers on its interface: mean 47, peak 53',
      );
      await expect(history.getByRole('img').nth(2).getAttribute('aria-label')).resolves.toContain(
        'Received: mean 16.5 KB/s, peak 97.7 KB/s',
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await photograph(card, `${screenshotDir}/admin-server-history-${width}.png`);
      await card.getByRole('button', { name: 'Hide last 24 hours' }).click();
      await expect(card.getByRole('region', { name: `${name}: last 24 hours` }).count()).resolves.toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    }
    await stopReporting();
  }, 60_000);
});
