import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { type AdminServer, type FakeAdminApi, idOf, installFakeAdminApi } from './support/fake-admin-api';
import { type FakeSession, installFakeSession } from './support/fake-analytics-api';
import { screenshotDir } from './support/paths';
import type { Site } from './support/site';
import { photograph } from './support/photos';

/**
 * The console's Servers page for the fleet (issue #23) against the fake admin API: adding a server
 * and its one-time enrolment token (shown once, then nowhere), a new token for a pending server,
 * the unreachable alert, each card's fleet facts, drain and retire (its 409 shown in the dialog),
 * retired servers last; at 1280 and 390 px, axe-checked, with screenshots in test-results/screenshots.
 */

let site: Site;
let browser: Browser;
siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

type Opened = { context: BrowserContext; page: Page; api: FakeAdminApi; session: FakeSession };

async function openServers(width = 1280, adjust?: (servers: AdminServer[]) => void): Promise<Opened> {
  const { context, page } = await openPage(browser, { width });
  const session = await installFakeSession(page, 'admin');
  const api = await installFakeAdminApi(page);
  adjust?.(api.fleet.servers);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  await page.goto(`${site.url}/admin/servers`);
  await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
  await card(page, 'fra-1').waitFor();
  return { context, page, api, session };
}

async function finish({ context, api, session }: Opened): Promise<void> {
  expect(api.problems).toEqual([]);
  expect(session.unexpected).toEqual([]);
  await context.close();
}

const card = (page: Page, name: string): Locator =>
  page.locator('li.admin-server').filter({ has: page.getByRole('heading', { name, exact: true }) });

/** A card's facts as [term, value] pairs. */
const facts = (item: Locator) =>
  item
    .locator('.admin-fact')
    .evaluateAll((rows) =>
      rows.map((row) => [row.querySelector('dt')?.textContent?.trim(), row.querySelector('dd')?.textContent?.trim()]),
    );

const metricTerms = (item: Locator) =>
  item.locator('.admin-metric dt').evaluateAll((terms) => terms.map((term) => term.firstChild?.textContent?.trim()));

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screenshotDir, `${name}-${width}.png`), { fullPage: true });
}

/** Everything the page keeps where a later visitor of this browser could find it. */
function pageAndStorage(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      `${document.documentElement.outerHTML}\n${JSON.stringify({ ...localStorage })}\n${JSON.stringify({ ...sessionStorage })}`,
  );
}

describe('Servers page: add a server (issue #23)', () => {
  it('checks fields by the field, shows the server’s refusal by its field, then the token once; closed, it is gone', async () => {
    const opened = await openServers();
    const { page, api } = opened;
    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('region', { name: 'Add a server' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    await expect(form.getByLabel('Capacity in peers', { exact: true }).inputValue()).resolves.toBe('1000');
    await expect(form.getByLabel('Region', { exact: true }).locator('option').allInnerTexts()).resolves.toEqual([
      'Choose a region',
      'North America',
      'Europe',
      'Asia',
    ]);

    // Nothing sent while a field is wrong; each problem is under its field and the first one has focus.
    await form.getByLabel('Name', { exact: true }).fill('Fra 2');
    await form.getByLabel('Public endpoint', { exact: true }).fill('203.0.113.20');
    await form.getByRole('button', { name: 'Add server' }).click();
    const errorOf = async (label: string) => {
      const describedBy = (await form.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
      const id = describedBy.split(' ').find((part) => part.endsWith('-error'));
      return id ? page.locator(`[id="${id}"]`).innerText() : null;
    };
    await expect.poll(() => errorOf('Name')).toMatch(/lowercase letters, digits and dashes/);
    await expect(errorOf('Region')).resolves.toBe('Choose a region.');
    await expect(errorOf('City')).resolves.toBe('Enter the city.');
    await expect(errorOf('Public endpoint')).resolves.toMatch(/host:port/);
    await expect(errorOf('Tags')).resolves.toBeNull();
    await expect(form.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    expect(api.requestsTo('/api/admin/servers', 'POST')).toHaveLength(0);

    // The server refuses a name that exists (409, by its field) and an endpoint it will not take (400).
    await form.getByLabel('Name', { exact: true }).fill('fra-1');
    await form.getByLabel('Region', { exact: true }).selectOption({ label: 'Europe' });
    await form.getByLabel('City', { exact: true }).fill('Frankfurt');
    await form.getByLabel('Public endpoint', { exact: true }).fill('203.0.113.20:51820');
    await form.getByLabel('Tags', { exact: true }).fill('gaming, EU');
    await form.getByLabel('Capacity in peers', { exact: true }).fill('500');
    await form.getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => errorOf('Name')).toBe('A server is already called fra-1.');
    await expect(errorOf('City')).resolves.toBeNull();
    api.fail('/api/admin/servers', {
      status: 400,
      code: 'validation_failed',
      message: 'body.endpoint is not a public address.',
    });
    await form.getByLabel('Name', { exact: true }).fill('fra-2');
    await form.getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => errorOf('Public endpoint')).toBe('body.endpoint is not a public address.');
    await expect(errorOf('Name')).resolves.toBeNull();
    api.recover('/api/admin/servers');
    await screenshot(page, 'admin-servers-add-form');

    await form.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Enrol fra-2' });
    await dialog.waitFor();
    expect(api.requestsTo('/api/admin/servers', 'POST').at(-1)?.body).toEqual({
      name: 'fra-2',
      region: 'europe',
      city: 'Frankfurt',
      endpoint: '203.0.113.20:51820',
      tags: ['gaming', 'eu'],
      capacity: 500,
    });
    const token = api.tokens.at(-1)!;
    const text = await dialog.innerText();
    expect(text).toContain('This token is shown only now.');
    expect(text).toContain(token);
    expect(text).toMatch(/The token works once, until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in (59|60) min\)/);
    await dialog.getByRole('button', { name: 'Copy install command' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(`--token ${token}`);
    await dialog.getByRole('button', { name: 'Copy enrolment token' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'admin-servers-token');

    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Add server');
    // The new server waits for its host; its token is nowhere in the page or the browser's storage.
    const added = card(page, 'fra-2');
    await added.getByText('Pending enrolment', { exact: true }).waitFor();
    await expect(added.innerText()).resolves.toMatch(/0 of 500 peers, low load/);
    await expect(added.innerText()).resolves.toContain('Waiting for its host: run the install command there as root.');
    await expect(metricTerms(added)).resolves.toEqual([]);
    expect(await pageAndStorage(page)).not.toContain(token);
    await page.evaluate(() => navigator.clipboard.writeText(''));

    // A new token: the same dialog, a different token, and again gone once closed.
    await added.getByRole('button', { name: 'New enrolment token' }).click();
    await dialog.waitFor();
    const second = api.tokens.at(-1)!;
    expect(second).not.toBe(token);
    await expect(dialog.innerText()).resolves.toContain(second);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    const after = await pageAndStorage(page);
    expect(after).not.toContain(token);
    expect(after).not.toContain(second);
    await finish(opened);
  });
});

describe('Servers page: health, drain and retire', () => {
  it('alerts on unreachable servers and shows each card’s fleet facts', async () => {
    const opened = await openServers(1280, (servers) => {
      const sgp = servers.find((server) => server.name === 'sgp-1')!;
      Object.assign(sgp, { reachable: false, peers_moved: 3, devices_held: 2 });
    });
    const { page } = opened;
    const alert = page.getByRole('alert').filter({ hasText: 'unreachable' });
    await expect(alert.innerText()).resolves.toContain(
      '2 servers are unreachable: nyc-1, sgp-1. Their devices show “Server unreachable” until they report again.',
    );
    const fra = card(page, 'fra-1');
    const fraFacts = await facts(fra);
    expect(fraFacts.map(([term]) => term)).toEqual([
      'Endpoint',
      'Capacity',
      'Last report',
      'Agent',
      'Uptime',
      'Resolver',
    ]);
    expect(fraFacts[0]?.[1]).toBe('203.0.113.10:51820');
    expect(fraFacts[1]?.[1]).toBe('18 of 100 peers, low load');
    expect(fraFacts[2]?.[1]).toMatch(/^2\d s ago$/);
    expect(fraFacts[3]?.[1]).toBe('0.1.0');
    expect(fraFacts[4]?.[1]).toMatch(/^(1 d|23 h 59 min)$/);
    // The node's own resolver (issue #25), as its agent's latest report said.
    expect(fraFacts[5]?.[1]).toBe('Answering');
    expect(Object.fromEntries(await facts(card(page, 'nyc-1'))).Resolver).toBe('Down, restarted 3 times');
    await expect(fra.getByText('Active', { exact: true }).isVisible()).resolves.toBe(true);
    // Moved and held only where there are some.
    expect(await metricTerms(fra)).not.toContain('Moved away');
    const sgp = card(page, 'sgp-1');
    expect(await metricTerms(sgp)).toEqual(['Peers placed', 'Retiring keys', 'Connected', 'Moved away', 'Held']);
    await expect(sgp.getByText('Unreachable', { exact: true }).isVisible()).resolves.toBe(true);
    const nyc = card(page, 'nyc-1');
    await expect(nyc.locator('.admin-server__badges').innerText()).resolves.toMatch(/Unreachable\s*Draining/);
    // Every serving server reports again: the alert goes.
    for (const server of opened.api.fleet.servers) server.reachable = true;
    await page.reload();
    await card(page, 'fra-1').waitFor();
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await finish(opened);
  });

  it('drain says where the devices go; retire shows a 409 in its dialog, then retires a drained server, listed last', async () => {
    const opened = await openServers();
    const { page, api } = opened;
    const fra = card(page, 'fra-1');
    await fra.getByRole('button', { name: 'Drain' }).click();
    const drain = page.getByRole('dialog', { name: 'Drain fra-1?' });
    await expect(drain.innerText()).resolves.toContain('Its devices move to other servers in Europe');
    await expect(drain.innerText()).resolves.toContain('until a server of the region has room');
    await drain.getByRole('button', { name: 'Drain' }).click();
    await fra.getByText('Draining', { exact: true }).waitFor();
    await fra.getByRole('button', { name: 'Open again' }).waitFor();

    await fra.getByRole('button', { name: 'Retire' }).click();
    const retire = page.getByRole('dialog', { name: 'Retire fra-1?' });
    await expect(retire.innerText()).resolves.toContain('must be drained first');
    await retire.getByRole('button', { name: 'Retire' }).click();
    await expect
      .poll(() => retire.getByRole('alert').innerText())
      .toContain('Drain fra-1 first: 18 devices are still on it.');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'admin-servers-retire-refused');
    await retire.getByRole('button', { name: 'Cancel' }).click();
    await retire.waitFor({ state: 'hidden' });
    await expect(fra.getByText('Draining', { exact: true }).isVisible()).resolves.toBe(true);

    // Its devices have moved: now it retires, drops to the collapsed list at the end, with no actions.
    const server = api.fleet.servers.find((candidate) => candidate.name === 'fra-1')!;
    Object.assign(server, { peers_placed: 0, peers_retiring: 0 });
    await fra.getByRole('button', { name: 'Retire' }).click();
    await retire.getByRole('button', { name: 'Retire' }).click();
    await retire.waitFor({ state: 'hidden' });
    expect(api.requestsTo('/api/admin/servers/:id/retire')).toHaveLength(2);
    expect(api.requestsTo('/api/admin/servers/:id/retire')[1]?.path).toBe(
      `/api/admin/servers/${idOf('server-fra')}/retire`,
    );
    const retired = page.locator('details.admin-servers__retired');
    await expect.poll(() => retired.locator('summary').innerText()).toMatch(/^Retired servers \(1\)/);
    await expect(retired.evaluate((details) => (details as HTMLDetailsElement).open)).resolves.toBe(false);
    await retired.locator('summary').click();
    const gone = card(page, 'fra-1');
    await expect(gone.getByText('Retired', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(gone.getByRole('button', { name: /Drain|Retire|Open again/ }).count()).resolves.toBe(0);
    const order = await page
      .locator('li.admin-server h2')
      .evaluateAll((headings) => headings.map((heading) => heading.textContent));
    expect(order).toEqual(['nyc-1', 'sgp-1', 'fra-1']);
    await screenshot(page, 'admin-servers-retired');
    await finish(opened);
  });
});

describe('Servers page: phones and accessibility', () => {
  it('at 390 and 1280 px: cards stack, the form and the token dialog fit, nothing scrolls sideways, axe clean', async () => {
    for (const width of [390, 1280]) {
      const opened = await openServers(width, (servers) => {
        servers.push({
          ...servers[0]!,
          id: idOf('server-old'),
          name: 'ams-1',
          city: 'Amsterdam',
          status: 'retired',
          reachable: false,
          peers_placed: 0,
          peers_retiring: 0,
          peers_connected: 0,
          metrics: null,
        });
        Object.assign(servers[2]!, { peers_moved: 4, devices_held: 1 });
      });
      const { page } = opened;
      expect(await sidewaysOverflow(page), `${width}: page`).toBeLessThanOrEqual(0);
      await page.locator('details.admin-servers__retired summary').click();
      if (width < 640) {
        const boxes = await page
          .locator('ul.admin-servers > li.admin-server')
          .evaluateAll((items) => items.map((item) => item.getBoundingClientRect().left));
        expect(new Set(boxes.map(Math.round)).size, 'one column').toBe(1);
      }
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await screenshot(page, 'admin-servers-fleet');
      await page.getByRole('button', { name: 'Add server' }).click();
      const form = page.getByRole('region', { name: 'Add a server' });
      await form.getByRole('button', { name: 'Add server' }).click();
      await expect(sidewaysOverflow(page)).resolves.toBeLessThanOrEqual(0);
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await screenshot(page, 'admin-servers-form-errors');
      await form.getByLabel('Name', { exact: true }).fill('tyo-1');
      await form.getByLabel('Region', { exact: true }).selectOption({ label: 'Asia' });
      await form.getByLabel('City', { exact: true }).fill('Tokyo');
      await form.getByLabel('Public endpoint', { exact: true }).fill('[2001:db8::7]:51820');
      await form.getByRole('button', { name: 'Add server' }).click();
      const dialog = page.getByRole('dialog', { name: 'Enrol tyo-1' });
      await dialog.waitFor();
      const box = await dialog.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await screenshot(page, 'admin-servers-token-dialog');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await finish(opened);
    }
  }, 90_000);
});
