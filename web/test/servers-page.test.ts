import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { demoPublicServers, installFakePublicServers } from './support/fake-public-servers';
import { screenshotDir } from './support/paths';
import type { Site } from './support/site';
import { photograph } from './support/photos';

/**
 * The public /servers page (issue #23) against a fake GET /api/servers checked against its
 * contract: a section per region with its cities' status, load and Gaming mark, refreshed every
 * 30 s; loading, error and empty states; links from the FAQ and the footer; 1280 and 390 px.
 */

let site: Site;
let browser: Browser;
siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

async function open(page: Page, path = '/servers') {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${site.url}${path}`);
  await page.locator('h1').first().waitFor();
  return errors;
}

/** Each region's cities as the page shows them: [city, status, load, gaming]. */
function citiesOf(page: Page, region: string) {
  return page
    .getByRole('region', { name: region, exact: true })
    .locator('li.mk-city')
    .evaluateAll((cards) =>
      cards.map((card) => {
        const values = Array.from(card.querySelectorAll('dd'), (dd) => (dd.textContent ?? '').trim());
        return [
          card.querySelector('h3')?.textContent,
          ...values,
          card.querySelector('.mk-city__head .qw-badge') ? 'Gaming' : '',
        ];
      }),
    );
}

async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screenshotDir, `${name}-${width}.png`), { fullPage: true });
}

describe('/servers (issue #23)', () => {
  it('lists regions and cities with status, load and the Gaming mark, and follows the live data every 30 s', async () => {
    const { context, page } = await openPage(browser);
    await page.clock.install();
    const fake = await installFakePublicServers(page);
    const errors = await open(page);
    await expect(page.locator('h1').innerText()).resolves.toBe('Server locations');
    await expect(page.title()).resolves.toBe('Servers — Quietwire');
    await page.locator('li.mk-city').first().waitFor();
    const headings = await page.locator('main h2').allInnerTexts();
    expect(headings).toEqual(['North America', 'Europe', 'Asia']);
    await expect(citiesOf(page, 'North America')).resolves.toEqual([['New York', 'Up', 'Medium', '']]);
    await expect(citiesOf(page, 'Europe')).resolves.toEqual([
      ['Frankfurt', 'Up', 'Low', ''],
      ['Amsterdam', 'Down', 'High', ''],
    ]);
    await expect(citiesOf(page, 'Asia')).resolves.toEqual([['Singapore', 'Up', 'Low', 'Gaming']]);
    await expect(page.getByRole('region', { name: 'Europe', exact: true }).innerText()).resolves.toContain(
      '1 of 2 cities up.',
    );
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'servers');

    // Amsterdam comes back up; the page shows it at the next refresh, without a reload.
    const asked = fake.requests;
    fake.answer.regions[1]!.cities[1] = { city: 'Amsterdam', status: 'up', load: 'medium', gaming: false };
    // The page's clock runs on in real time too (axe and the screenshot took some), so no claim on the
    // exact second: within one more 30 s period it has asked again and shows the answer.
    await page.clock.fastForward(30_500);
    await expect.poll(() => citiesOf(page, 'Europe')).toContainEqual(['Amsterdam', 'Up', 'Medium', '']);
    expect(fake.requests).toBeGreaterThan(asked);
    expect(fake.problems).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('at 390 px: one column, nothing scrolls sideways, axe clean, dark too', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await openPage(browser, { width: 390, colorScheme });
      await installFakePublicServers(page);
      const errors = await open(page);
      await page.locator('li.mk-city').first().waitFor();
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      const lefts = await page
        .getByRole('region', { name: 'Europe', exact: true })
        .locator('li.mk-city')
        .evaluateAll((cards) => cards.map((card) => Math.round(card.getBoundingClientRect().left)));
      expect(new Set(lefts).size).toBe(1);
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await screenshot(page, colorScheme === 'dark' ? 'servers-dark' : 'servers');
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('says it is loading, that it failed (with Retry), and when no server is listed', async () => {
    const { context, page } = await openPage(browser);
    const fake = await installFakePublicServers(page);
    let release = () => {};
    fake.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    await open(page);
    await expect(page.getByRole('status').filter({ hasText: 'Loading the server list…' }).count()).resolves.toBe(1);
    await expect(page.locator('main .qw-skeleton').count()).resolves.toBeGreaterThan(0);
    fake.hold = null;
    release();
    await page.locator('li.mk-city').first().waitFor();

    // A failure with nothing to show: what happened and a way to ask again.
    fake.failWith = 503;
    await page.reload();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.innerText(), { timeout: 15_000 }).toContain('The server list did not load.');
    await screenshot(page, 'servers-error');
    fake.failWith = null;
    fake.answer = { regions: demoPublicServers().regions.map((region) => ({ ...region, cities: [] })) };
    await alert.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('No servers are listed right now. Check again in a few minutes.').waitFor();
    await expect(page.locator('li.mk-city').count()).resolves.toBe(0);
    await context.close();
  }, 45_000);

  it('is linked from the FAQ’s server-locations answer and from the footer', async () => {
    const { context, page } = await openPage(browser);
    await installFakePublicServers(page);
    await open(page, '/faq');
    const answer = page.getByRole('article', { name: 'Where are your servers?' });
    await expect(answer.innerText()).resolves.toContain('In North America, Europe and Asia.');
    await answer.getByRole('link', { name: 'server locations page' }).click();
    await page.getByRole('heading', { level: 1, name: 'Server locations' }).waitFor();
    await page.goto(`${site.url}/pricing`);
    await page.getByRole('navigation', { name: 'Footer' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Server locations' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/servers');
    await context.close();
  });
});
