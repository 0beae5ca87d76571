import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import type { Site } from './support/site';

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

async function open(path: string) {
  const { context, page } = await openPage(browser);
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(`${site.url}${path}`);
  await page.locator('h1').waitFor();
  return { context, page, requested };
}

const activeText = (page: import('playwright-core').Page) =>
  page.evaluate(() => document.activeElement?.textContent ?? '');

describe('design system (/design-system)', () => {
  it('modal: opens focused, traps Tab, closes on Esc and returns focus; confirm shows a toast', async () => {
    const { context, page } = await open('/design-system');
    const opener = page.getByRole('button', { name: 'Remove device' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Remove this device?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect.poll(() => activeText(page)).toBe('Cancel');
    await page.keyboard.press('Tab');
    await expect(activeText(page)).resolves.toBe('Remove');
    await page.keyboard.press('Tab');
    await expect(activeText(page)).resolves.toBe('Cancel');
    await page.keyboard.press('Shift+Tab');
    await expect(activeText(page)).resolves.toBe('Remove');

    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect(activeText(page)).resolves.toBe('Remove device');

    await opener.click();
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => page.locator('.qw-toast').allInnerTexts()).toEqual(['Device removed']);
    await context.close();
  });

  it("toast: 'Saved' appears in a live region and goes away by itself", async () => {
    const { context, page } = await open('/design-system');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.locator('[role="status"][aria-live="polite"] .qw-toast').innerText()).resolves.toBe('Saved');
    await expect.poll(() => page.locator('.qw-toast').count(), { timeout: 6000 }).toBe(0);
    await context.close();
  });

  it('button: busy shows the busy text and disables it', async () => {
    const { context, page } = await open('/design-system');
    await page.getByRole('button', { name: 'Toggle busy' }).click();
    const busy = page.getByRole('button', { name: 'Redirecting…' });
    await expect(busy.isDisabled()).resolves.toBe(true);
    await expect(busy.getAttribute('aria-busy')).resolves.toBe('true');
    await context.close();
  });

  it('table: sorts by header, right-aligns numbers, shows the empty state and a loading skeleton; tabs mark the current tab', async () => {
    const { context, page } = await open('/design-system/tables');
    await expect(page.locator('nav[aria-label="Design system"] a[aria-current="page"]').innerText()).resolves.toBe(
      'Tables',
    );
    const table = page.getByRole('table', { name: 'Devices', exact: true });
    await table.getByRole('button', { name: /Received/ }).click();
    await expect.poll(() => table.locator('tbody th').allInnerTexts()).toEqual(['Phone', 'Laptop', 'Router']);
    await table.getByRole('button', { name: /Received/ }).click();
    await expect.poll(() => table.locator('tbody th').allInnerTexts()).toEqual(['Router', 'Laptop', 'Phone']);
    await expect(table.locator('thead th').nth(2).getAttribute('aria-sort')).resolves.toBe('descending');
    await expect(
      table
        .locator('tbody td')
        .last()
        .evaluate((cell) => getComputedStyle(cell).textAlign),
    ).resolves.toBe('right');
    await expect(page.getByRole('table', { name: 'No devices' }).innerText()).resolves.toContain(
      'No devices yet. Add one above.',
    );
    await expect(page.getByRole('table', { name: 'Loading devices' }).getAttribute('aria-busy')).resolves.toBe('true');
    await expect(page.locator('table[aria-busy="true"] .qw-skeleton').count()).resolves.toBe(9);
    await context.close();
  });

  it('chart: echarts loads only when a chart is shown', async () => {
    const { context, page, requested } = await open('/design-system');
    expect(requested.filter((url) => /echarts/.test(url))).toEqual([]);
    await page.getByRole('link', { name: 'Chart' }).click();
    await page.locator('[role="img"][aria-label^="Traffic"] canvas').waitFor();
    expect(requested.some((url) => /echarts/.test(url))).toBe(true);
    await context.close();
  });

  it('has no serious or critical axe-core violations', async () => {
    const { context, page } = await open('/design-system');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await context.close();
  });
});
