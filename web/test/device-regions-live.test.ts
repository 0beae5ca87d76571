import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerNodeRpc } from '@qw/contracts';
import { keepReporting } from '@qw/testkit';
import { generateKeyPair } from '@qw/wireguard';
import { customerWithPlan, deviceServices } from '../../services/gateway/test/support/products.ts';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { downloadedText, launchBrowser, openPage } from './support/browser.ts';
import { screenshot, signInThroughPage } from './support/real-stack.ts';

/**
 * Issue #23's region change in Chromium on the real gateway and provisioning, at 1280 and 390 px:
 * a device added in Europe lands in Frankfurt; Change region to North America moves it to
 * Toronto and its row says to download the config again; the downloaded file names Toronto's
 * endpoint, and the download clears the notice; Asia, where no server is, is refused under the
 * control with provisioning's words and nothing moves. Two agent-less nodes that keep reporting.
 * Photos in test-results/screenshots/regions-live-*.png.
 */
let stack: Stack;
let browser: Browser;
const password = 'correct horse battery';
const email = 'rowan@regions-live.test';
const servers = {
  'fra-live': { region: 'europe', city: 'Frankfurt', ip: '203.0.113.71' },
  'tor-live': { region: 'north-america', city: 'Toronto', ip: '203.0.113.72' },
} as const;

/** A device's row and the details line under it: one <tbody>. */
const device = (page: Page, name: string) => page.locator('tbody', { has: page.locator(`input[value="${name}"]`) });

beforeAll(async () => {
  stack = await startStack({ label: 'webregions', listen: true, extra: deviceServices });
  for (const [name, server] of Object.entries(servers)) {
    const node = await stack.connectNode(name);
    await node.rpc.request(
      registerNodeRpc,
      {
        region: server.region,
        city: server.city,
        endpoint: `${server.ip}:51820`,
        public_key: generateKeyPair().publicKey,
        ip: server.ip,
        tags: [],
      },
      undefined,
      { params: { node: name } },
    );
    keepReporting(node.bus, name);
  }
  await customerWithPlan(stack, email, 'personal', password);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('changing a device’s region on the real services', () => {
  it('moves it, says to download again until the new config is downloaded, and refuses a region without room', async () => {
    for (const width of [1280, 390]) {
      const name = `Rowan laptop ${width}`;
      const { context, page } = await openPage(browser, { width });
      await signInThroughPage(page, stack.publicUrl, email, password);
      await page.goto(`${stack.publicUrl}/app/personal/devices`);

      const form = page.getByRole('form', { name: 'Add a device' });
      await form.getByLabel('Region').selectOption('europe');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByRole('button', { name: 'Add', exact: true }).click();
      const row = device(page, name);
      const server = row.getByTestId('device-server');
      await expect.poll(() => server.innerText(), { timeout: 15_000 }).toBe('Frankfurt, Europe');

      const picker = row.getByLabel(`Region of ${name}`);
      await expect(picker.inputValue()).resolves.toBe('europe');
      await picker.selectOption('north-america');
      await row.getByRole('button', { name: 'Change region' }).click();
      await page
        .getByRole('dialog', { name: `Move ${name} to North America?` })
        .getByRole('button', { name: 'Change region' })
        .click();
      const moved = row.getByTestId('device-moved');
      await expect
        .poll(() => moved.innerText(), { timeout: 15_000 })
        .toContain(
          'Moved to Toronto, North America. Download its configuration again: the old one works until the device connects with the new one, then stops.',
        );
      await expect(server.innerText()).resolves.toBe('Toronto, North America');
      await screenshot(page, 'regions-live-moved');
      expect(await seriousAxeViolations(page)).toEqual([]);

      // The new file names Toronto; downloading it clears the notice.
      const download = page.waitForEvent('download');
      await moved.getByRole('link', { name: 'Download config', exact: true }).click();
      const file = await downloadedText(await download);
      expect(file).toContain(`Endpoint = ${servers['tor-live'].ip}:51820`);
      await expect.poll(() => moved.count(), { timeout: 15_000 }).toBe(0);

      // No server in Asia: provisioning's refusal, under the control; the device stays in Toronto.
      await picker.selectOption('asia');
      await row.getByRole('button', { name: 'Change region' }).click();
      await page
        .getByRole('dialog', { name: `Move ${name} to Asia?` })
        .getByRole('button', { name: 'Change region' })
        .click();
      await expect
        .poll(() => row.getByTestId('region-change-answer').innerText(), { timeout: 15_000 })
        .toBe('No server in Asia has room right now. Choose another region or Automatic.');
      await expect(server.innerText()).resolves.toBe('Toronto, North America');
      await expect(picker.inputValue()).resolves.toBe('north-america');
      await screenshot(page, 'regions-live-no-room');
      await context.close();
    }
  }, 120_000);
});
