import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { FakeFleetApi } from './support/fake-fleet-api';
import { FakeOrgApi } from './support/fake-org-api';
import { screenshot } from './support/real-stack';
import type { Site } from './support/site';

/**
 * Issue #23 in Chromium at 1280 and 390 px, against fakes of the device routes
 * (web/test/support/fake-fleet-api.ts, fake-org-api.ts): the region picker in both add forms
 * (Automatic with the browser's country by default, the country only with Automatic), a region
 * change (confirmed, the moved notice with its Config and QR code, gone once the config is
 * downloaded; a 409 "no room" said under the control), a device whose server is unreachable
 * ("Server unreachable", never "Not connected") and a held one ("Waiting for room in Europe").
 * Photos in test-results/screenshots/regions-*.png.
 */

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

async function open(width: number, api: FakeFleetApi | FakeOrgApi) {
  const { context, page } = await openPage(browser, { width, colorScheme: width < 600 ? 'dark' : 'light' });
  await api.install(page);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const close = async () => {
    await context.close();
    if (api instanceof FakeFleetApi) await api.close();
  };
  return { close, page, errors };
}

/** A device's row and the details line under it: one <tbody>. */
const device = (page: Page, name: string) => page.locator('tbody', { has: page.locator(`input[value="${name}"]`) });

async function checked(page: Page, name: string, width: number) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
  await screenshot(page, `regions-${name}`);
  const violations = await seriousAxeViolations(page);
  expect(violations, `${name} at ${width}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
}

describe('choosing where a device connects (fake API)', () => {
  for (const width of [1280, 390]) {
    it(`the personal add form offers a region, and a country for Automatic, ${width} px`, async () => {
      const api = new FakeFleetApi();
      const { close, page, errors } = await open(width, api);
      await page.goto(`${site.url}/app/personal/devices`);
      const form = page.getByRole('form', { name: 'Add a device' });
      const region = form.getByLabel('Region');
      const country = form.getByLabel('Your country');
      await expect.poll(() => region.inputValue()).toBe('auto');
      await expect(region.locator('option').allInnerTexts()).resolves.toEqual([
        'Automatic',
        'North America',
        'Europe',
        'Asia',
      ]);
      // The browser says en-US: the United States by default, named, and why it is asked.
      await expect(country.inputValue()).resolves.toBe('US');
      await expect(country.locator('option:checked').innerText()).resolves.toBe('United States');
      await expect(form.innerText()).resolves.toContain(
        'Your country is used only to pick the nearest region; it is kept with the device.',
      );
      await checked(page, 'personal-add', width);

      // Automatic from Germany: placed in Europe, the country sent with it.
      await country.selectOption('DE');
      await form.getByLabel('Name', { exact: true }).fill('Rowan laptop');
      await form.getByRole('button', { name: 'Add', exact: true }).click();
      const laptop = device(page, 'Rowan laptop');
      await expect.poll(() => laptop.getByTestId('device-server').innerText()).toBe('Frankfurt, Europe');

      // A chosen region: no country asked, none sent.
      await region.selectOption('asia');
      await expect(country.count()).resolves.toBe(0);
      await form.getByLabel('Name', { exact: true }).fill('Rowan phone');
      await form.getByRole('button', { name: 'Add', exact: true }).click();
      await expect
        .poll(() => device(page, 'Rowan phone').getByTestId('device-server').innerText())
        .toBe('Singapore, Asia');
      expect(api.bodies.map(({ name, region: r, country: c }) => ({ name, region: r, country: c }))).toEqual([
        { name: 'Rowan laptop', region: 'auto', country: 'DE' },
        { name: 'Rowan phone', region: 'asia', country: undefined },
      ]);
      expect(api.unexpected).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 60_000);

    it(`the business add form offers the same picker, ${width} px`, async () => {
      const api = new FakeOrgApi('owner');
      const { close, page, errors } = await open(width, api);
      await page.goto(`${site.url}/app/business/devices`);
      const form = page.getByRole('form', { name: 'Add a device' });
      await form.getByLabel('Region').waitFor();
      await expect(form.getByLabel('Your country').inputValue()).resolves.toBe('US');
      await checked(page, 'business-add', width);
      await form.getByLabel('Region').selectOption('europe');
      await form.getByLabel('Name', { exact: true }).fill('Lab gateway');
      await form.getByRole('button', { name: 'Add', exact: true }).click();
      await device(page, 'Lab gateway').waitFor();
      const added = api.devices.find((d) => d.name === 'Lab gateway');
      expect({ region: added?.region_choice, country: added?.country }).toEqual({ region: 'europe', country: null });
      expect(errors).toEqual([]);
      await close();
    }, 60_000);

    it(`changing a device's region: confirmed, told to download again until it has, refused when full, ${width} px`, async () => {
      const api = new FakeFleetApi();
      api.add('Rowan laptop', 'europe', { country: 'DE' });
      const { close, page, errors } = await open(width, api);
      await page.goto(`${site.url}/app/personal/devices`);
      const laptop = device(page, 'Rowan laptop');
      const picker = laptop.getByLabel('Region of Rowan laptop');
      await expect.poll(() => picker.inputValue()).toBe('auto');
      await expect(picker.locator('option:checked').innerText()).resolves.toBe('Automatic (nearest to Germany)');
      const change = laptop.getByRole('button', { name: 'Change region' });
      await expect(change.isDisabled()).resolves.toBe(true);

      await picker.selectOption('asia');
      await change.click();
      const dialog = page.getByRole('dialog', { name: 'Move Rowan laptop to Asia?' });
      await expect(dialog.innerText()).resolves.toContain('download its configuration again');
      await dialog.getByRole('button', { name: 'Change region' }).click();

      const moved = laptop.getByTestId('device-moved');
      await expect
        .poll(() => moved.innerText())
        .toContain(
          'Moved to Singapore, Asia. Download its configuration again: the old one works until the device connects with the new one, then stops.',
        );
      await expect(laptop.getByTestId('device-server').innerText()).resolves.toBe('Singapore, Asia');
      expect(api.bodies.at(-1)).toEqual({ region: 'asia' });
      await checked(page, 'moved', width);

      // The notice's own Download config fetches the file through its one-minute link; that clears the notice.
      const download = page.waitForEvent('download');
      await moved.getByRole('link', { name: 'Download config', exact: true }).click();
      expect((await download).suggestedFilename()).toBe('rowan-laptop.conf');
      await expect.poll(() => moved.count(), { timeout: 15_000 }).toBe(0);

      // No server in North America has room: said under the control, nothing moved.
      api.server('north-america').full = true;
      await picker.selectOption('north-america');
      await change.click();
      await page
        .getByRole('dialog', { name: 'Move Rowan laptop to North America?' })
        .getByRole('button', {
          name: 'Change region',
        })
        .click();
      const answer = laptop.getByTestId('region-change-answer');
      await expect
        .poll(() => answer.innerText())
        .toBe('No server in North America has room right now. Choose another region or Automatic.');
      await expect(answer.getAttribute('role')).resolves.toBe('alert');
      await expect(picker.inputValue()).resolves.toBe('asia');
      await expect(laptop.getByTestId('device-server').innerText()).resolves.toBe('Singapore, Asia');
      await checked(page, 'no-room', width);
      expect(api.unexpected).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 60_000);

    it(`a device on an unreachable server and a held one say so, ${width} px`, async () => {
      const api = new FakeFleetApi();
      api.server('north-america').reachable = false;
      api.add('Rowan desktop', 'north-america', { latest_handshake: '2026-11-25T03:00:00.000Z' });
      api.add('Rowan tablet', 'europe', { held_since: '2026-11-25T03:30:00.000Z', is_connected: true });
      const { close, page, errors } = await open(width, api);
      await page.goto(`${site.url}/app/personal/devices`);
      const desktop = device(page, 'Rowan desktop');
      await desktop.waitFor();
      const desktopRow = desktop.locator('tr').first();
      await expect.poll(() => desktopRow.innerText()).toMatch(/Active\s+Server unreachable/);
      await expect(desktopRow.innerText()).resolves.not.toMatch(/Not connected|Offline/);
      await expect(desktop.getByTestId('device-server').innerText()).resolves.toMatch(
        /^New York, North America\s*Server unreachable$/,
      );

      const tablet = device(page, 'Rowan tablet');
      await expect(tablet.getByTestId('device-held').innerText()).resolves.toBe('Waiting for room in Europe');
      await expect(tablet.locator('tr').first().innerText()).resolves.toMatch(
        /Active\s+Waiting for room in Europe\s+Connected/,
      );
      await checked(page, 'states', width);
      expect(api.unexpected).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 60_000);
  }
});
