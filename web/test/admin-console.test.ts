import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { type FakeAdminApi, idOf, installFakeAdminApi } from './support/fake-admin-api';
import { type FakeSession, installFakeSession } from './support/fake-analytics-api';
import { repoRoot } from './support/paths';
import type { Site } from './support/site';
import { photograph } from './support/photos';

/**
 * The operator console (issue #13, spec §2 Admin area) against a fake of the admin API
 * (test/support/fake-admin-api.ts: the contract's shapes, checked both ways, over a small fleet):
 * every page's data, the queries its paging, search, filters and sorting send, the device actions
 * and 'Action failed', the server cards' figures, View Site, and phones (390 px) without sideways
 * scrolling. Screenshots of every page at 1280 and 390 px go to var/screens/.
 */

const screensDir = join(repoRoot, 'var/screens');
let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

type Opened = { context: BrowserContext; page: Page; api: FakeAdminApi; session: FakeSession };

async function openConsole(path: string, heading: string, width = 1280): Promise<Opened> {
  const { context, page } = await openPage(browser, { width });
  const session = await installFakeSession(page, 'admin');
  const api = await installFakeAdminApi(page);
  await page.goto(`${site.url}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  return { context, page, api, session };
}

async function finish({ context, api, session }: Opened): Promise<void> {
  expect(api.problems).toEqual([]);
  expect(session.unexpected).toEqual([]);
  await context.close();
}

const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** The text of each body row's cells (row header and cells), trimmed. */
function rowsOf(scope: Locator): Promise<string[][]> {
  return scope
    .locator('table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('th, td'), (cell) => (cell.textContent ?? '').trim())),
    );
}

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screensDir, `${name}-${width}.png`), { fullPage: true });
  // The first screen as a phone shows it, for a look at the top without scaling a long page down.
  if (width < 640) await photograph(page, join(screensDir, `${name}-${width}-top.png`));
}

describe('admin console: Overview', () => {
  it('shows the four counts linking to their pages, the 24-hour traffic chart with its table, and Servers', async () => {
    const opened = await openConsole('/admin', 'Overview');
    const { page, api } = opened;
    const tiles: [string, string, string][] = [
      ['Users', '60', '/admin/accounts'],
      ['Organizations', '30', '/admin/accounts/organizations'],
      ['Devices', '40', '/admin/devices'],
      ['Active Devices', String(api.fleet.devices.filter((device) => device.is_connected).length), '/admin/telemetry'],
    ];
    for (const [label, value, href] of tiles) {
      const tile = page.locator('a.qw-stat-tile', { hasText: label }).filter({
        has: page.locator('.qw-stat-tile__label', { hasText: new RegExp(`^${label}$`) }),
      });
      await expect.poll(() => tile.locator('.qw-stat-tile__value').innerText()).toBe(value);
      await expect(tile.getAttribute('href')).resolves.toBe(href);
    }
    const traffic = section(page, 'Traffic');
    await traffic.locator('canvas').first().waitFor();
    await traffic.getByRole('button', { name: 'Show table' }).click();
    const rows = await rowsOf(traffic);
    expect(rows).toHaveLength(24);
    const first = api.fleet.traffic[0]!;
    expect(rows[0]).toEqual([`${first.hour.slice(0, 10)} ${first.hour.slice(11, 13)}:00 UTC`, '50.0 MB', '20.0 MB']);
    await expect(page.getByRole('link', { name: /^Servers: / }).getAttribute('href')).resolves.toBe('/admin/servers');
    // Issue #26: the Devices figure says what it is made of, in the Servers and Telemetry pages' words.
    const fleet = api.fleet.devices;
    const placed = fleet.filter((device) => device.is_active && device.has_keys).length;
    const suspended = fleet.filter((device) => !device.is_active).length;
    const keyless = fleet.filter((device) => device.is_active && !device.has_keys).length;
    expect(placed + suspended + keyless).toBe(40);
    await expect(
      page.locator('a.qw-stat-tile', { hasText: 'Devices' }).first().locator('.qw-stat-tile__hint').innerText(),
    ).resolves.toBe(`Every device: ${placed} placed on servers, ${suspended} suspended, ${keyless} without a key`);
    await page.locator('a.qw-stat-tile', { hasText: 'Every device' }).click();
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    await finish(opened);
  });
});

describe('admin console: Accounts', () => {
  it('pages, searches and sorts users on the server', async () => {
    const opened = await openConsole('/admin/accounts', 'Accounts');
    const { page, api } = opened;
    const users = section(page, 'Users');
    await expect.poll(async () => (await rowsOf(users)).length).toBe(25);
    // Newest first by default; columns email, name, type, plan, organizations, created (user60 has no name).
    expect((await rowsOf(users))[0]).toEqual(['user60@example.test', '—', 'Personal', '—', '0', '2026-03-01']);
    expect((await rowsOf(users))[1]).toEqual([
      'user59@example.testNot verified',
      'Person 59',
      'Personal',
      'Gaming',
      '0',
      '2026-02-28',
    ]);
    await expect(users.getByText('Users 1–25 of 60').isVisible()).resolves.toBe(true);
    expect(api.requestsTo('/api/admin/users')[0]?.query).toEqual({
      sort: 'created_at',
      dir: 'desc',
      page: '1',
      per_page: '25',
    });

    await users.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => users.getByText('Users 26–50 of 60').isVisible()).toBe(true);
    expect(api.requestsTo('/api/admin/users').at(-1)?.query).toMatchObject({ page: '2', per_page: '25' });
    expect((await rowsOf(users))[0]?.[0]).toBe('user35@example.test');

    await users.getByRole('button', { name: /^Email/ }).click();
    await expect
      .poll(() => api.requestsTo('/api/admin/users').at(-1)?.query)
      .toMatchObject({
        sort: 'email',
        dir: 'asc',
        page: '1',
      });
    await expect.poll(async () => (await rowsOf(users))[0]?.[0]).toBe('user01@example.test');

    await users.getByRole('searchbox', { name: 'Search users' }).fill('user07');
    await users.getByRole('button', { name: 'Search' }).click();
    await expect.poll(async () => (await rowsOf(users)).map((row) => row[0])).toEqual(['user07@example.test']);
    expect(api.requestsTo('/api/admin/users').at(-1)?.query).toMatchObject({ q: 'user07', page: '1' });
    // user07: index 6, a Personal plan, no organization.
    expect((await rowsOf(users))[0]?.slice(1, 4)).toEqual(['Person 07', 'Personal', 'Personal']);
    await finish(opened);
  });

  it('filters organizations, and suspends and reactivates one after a confirmation', async () => {
    const opened = await openConsole('/admin/accounts', 'Accounts');
    const { page, api } = opened;
    // Issue #26: each list is on its own tab, with its own address.
    await expect(section(page, 'Organizations').count()).resolves.toBe(0);
    await page.getByRole('navigation', { name: 'Accounts' }).getByRole('link', { name: 'Organizations' }).click();
    await page.waitForURL('**/admin/accounts/organizations');
    // The tab's screen replaces the Users one once its route has loaded.
    await expect.poll(() => section(page, 'Users').count()).toBe(0);
    const orgs = section(page, 'Organizations');
    await expect.poll(async () => (await rowsOf(orgs)).length).toBe(25);
    await orgs.getByRole('combobox', { name: 'Status' }).selectOption('Suspended');
    await expect.poll(async () => (await rowsOf(orgs)).map((row) => row[0])).toEqual(['Org 02 Ltd']);
    expect(api.requestsTo('/api/admin/organizations').at(-1)?.query).toMatchObject({ status: 'Suspended', page: '1' });
    expect((await rowsOf(orgs))[0]?.slice(0, 4)).toEqual([
      'Org 02 Ltd',
      'Business 50',
      '3',
      'SuspendedBy an operator: Unpaid invoices since October.',
    ]);

    await orgs.getByRole('button', { name: 'Reactivate Org 02 Ltd' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reactivate Org 02 Ltd?' });
    await dialog.getByRole('button', { name: 'Reactivate' }).click();
    await expect.poll(() => api.requestsTo('/api/admin/organizations/:id/reactivate').length).toBe(1);
    expect(api.requestsTo('/api/admin/organizations/:id/reactivate')[0]?.path).toBe(
      `/api/admin/organizations/${idOf('org-02')}/reactivate`,
    );
    await expect.poll(async () => (await rowsOf(orgs))[0]?.[0]).toBe('No organization matches.');

    await orgs.getByRole('combobox', { name: 'Status' }).selectOption('');
    await orgs.getByRole('searchbox', { name: 'Search organizations' }).fill('Org 05');
    await orgs.getByRole('button', { name: 'Search' }).click();
    await expect.poll(async () => (await rowsOf(orgs)).map((row) => row[0])).toEqual(['Org 05 Ltd']);
    await orgs.getByRole('button', { name: 'Suspend Org 05 Ltd' }).click();
    // Cancel changes nothing.
    await page.getByRole('dialog', { name: 'Suspend Org 05 Ltd?' }).getByRole('button', { name: 'Cancel' }).click();
    expect(api.requestsTo('/api/admin/organizations/:id/suspend')).toHaveLength(0);
    await orgs.getByRole('button', { name: 'Suspend Org 05 Ltd' }).click();
    // Issue #26: a suspension asks why; without a reason nothing is sent and the field says so.
    const suspendDialog = page.getByRole('dialog', { name: 'Suspend Org 05 Ltd?' });
    await suspendDialog.getByRole('button', { name: 'Suspend' }).click();
    await suspendDialog.getByText('Say why: the members of this organization read it.').waitFor();
    await expect(suspendDialog.getByRole('textbox', { name: 'Reason' }).getAttribute('aria-invalid')).resolves.toBe(
      'true',
    );
    expect(api.requestsTo('/api/admin/organizations/:id/suspend')).toHaveLength(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await suspendDialog.getByRole('textbox', { name: 'Reason' }).fill('  Chargebacks on three cards.  ');
    await suspendDialog.getByRole('button', { name: 'Suspend' }).click();
    await expect
      .poll(async () => (await rowsOf(orgs))[0]?.[3])
      .toBe('SuspendedBy an operator: Chargebacks on three cards.');
    expect(api.requestsTo('/api/admin/organizations/:id/suspend')).toHaveLength(1);
    expect(api.requestsTo('/api/admin/organizations/:id/suspend')[0]?.body).toEqual({
      reason: 'Chargebacks on three cards.',
    });

    // Both changes are in the audit, newest first.
    await page.getByRole('navigation', { name: 'Accounts' }).getByRole('link', { name: 'Audit' }).click();
    await page.waitForURL('**/admin/accounts/audit');
    const audit = section(page, 'Audit');
    await expect
      .poll(async () => (await rowsOf(audit)).slice(0, 2).map((row) => row[1]))
      .toEqual([
        'ops@quietwire.test suspended Org 05 Ltd: “Chargebacks on three cards.”',
        'ops@quietwire.test lifted the suspension of Org 02 Ltd.',
      ]);
    await finish(opened);
  });

  it('adds and removes admin emails; a configured one cannot be removed', async () => {
    const opened = await openConsole('/admin/accounts/admins', 'Accounts');
    const { page, api } = opened;
    await expect(
      page
        .getByRole('navigation', { name: 'Accounts' })
        .getByRole('link', { name: 'Admin emails' })
        .getAttribute('aria-current'),
    ).resolves.toBe('page');
    const emails = section(page, 'Admin emails');
    await expect
      .poll(async () => (await rowsOf(emails)).map((row) => row[0]))
      .toEqual(['ops@quietwire.test', 'second-admin@quietwire.test']);
    await expect(emails.getByRole('button', { name: 'Remove ops@quietwire.test' }).count()).resolves.toBe(0);

    await emails.getByRole('textbox', { name: 'Add an admin email' }).fill('new-admin@quietwire.test');
    await emails.getByRole('button', { name: 'Add' }).click();
    await expect.poll(async () => (await rowsOf(emails)).map((row) => row[0])).toContain('new-admin@quietwire.test');
    expect(api.requestsTo('/api/admin/admin-emails', 'POST')[0]?.body).toEqual({ email: 'new-admin@quietwire.test' });

    // The server's refusal is shown under the field.
    await emails.getByRole('textbox', { name: 'Add an admin email' }).fill('new-admin@quietwire.test');
    await emails.getByRole('button', { name: 'Add' }).click();
    await emails.getByText('That address is already on the list.').waitFor();

    await emails.getByRole('button', { name: 'Remove second-admin@quietwire.test' }).click();
    await page
      .getByRole('dialog', { name: 'Remove second-admin@quietwire.test?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect
      .poll(async () => (await rowsOf(emails)).map((row) => row[0]))
      .toEqual(['ops@quietwire.test', 'new-admin@quietwire.test']);
    expect(api.requestsTo('/api/admin/admin-emails/:email', 'DELETE')[0]?.path).toBe(
      '/api/admin/admin-emails/second-admin%40quietwire.test',
    );
    await finish(opened);
  });
});

describe('admin console: Devices', () => {
  it('lists every device with owner, organization, node, active and connected; searches, filters and pages on the server', async () => {
    const opened = await openConsole('/admin/devices', 'Devices');
    const { page, api } = opened;
    await expect.poll(async () => (await rowsOf(page.locator('main'))).length).toBe(25);
    const rows = await rowsOf(page.locator('main'));
    // device-40: an android of user40, no organization, not placed; device-37 (index 36): org, node fra-1.
    expect(rows[0]?.slice(0, 4)).toEqual([
      'device-40android',
      'user40@example.testPerson 40',
      'Personal',
      'Not placed',
    ]);
    const device37 = rows.find((row) => row[0]?.startsWith('device-37'));
    expect(device37?.slice(2, 5)).toEqual(['Org 07 Ltd', 'fra-1', 'Yes']);
    expect(device37?.[5]).toMatch(/^Online/);
    // device-38 (index 37): held off by an operator, and its row says so under Active.
    expect(rows.find((row) => row[0]?.startsWith('device-38'))?.[4]).toBe('NoSuspended by an operator');

    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => api.requestsTo('/api/admin/devices').at(-1)?.query.page).toBe('2');
    await expect.poll(async () => (await rowsOf(page.locator('main'))).length).toBe(15);

    await page.getByRole('combobox', { name: 'Node' }).selectOption({ label: 'fra-1' });
    await expect
      .poll(() => api.requestsTo('/api/admin/devices').at(-1)?.query)
      .toMatchObject({
        node: idOf('server-fra'),
        page: '1',
      });
    await page.getByRole('combobox', { name: 'Connected' }).selectOption({ label: 'Yes' });
    await expect
      .poll(() => api.requestsTo('/api/admin/devices').at(-1)?.query)
      .toMatchObject({
        node: idOf('server-fra'),
        connected: 'true',
      });
    const expected = api.fleet.devices
      .filter((device) => device.node?.name === 'fra-1' && device.is_connected)
      .map((device) => device.name)
      .reverse();
    expect(expected.length).toBeGreaterThan(1);
    await expect
      .poll(async () =>
        (await rowsOf(page.locator('main'))).map((row) => row[0]?.replace(/(linux|macos|windows|ios|android)$/, '')),
      )
      .toEqual(expected);

    await page.getByRole('combobox', { name: 'Node' }).selectOption('');
    await page.getByRole('combobox', { name: 'Connected' }).selectOption('');
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Org 05 Ltd' });
    await expect
      .poll(() => api.requestsTo('/api/admin/devices').at(-1)?.query)
      .toEqual({
        org: idOf('org-05'),
        sort: 'created_at',
        dir: 'desc',
        page: '1',
        per_page: '25',
      });
    await page.getByRole('combobox', { name: 'Organization' }).selectOption('');
    await page.getByRole('searchbox', { name: 'Search devices' }).fill('user03@');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => api.requestsTo('/api/admin/devices').at(-1)?.query.q).toBe('user03@');
    await expect
      .poll(async () => (await rowsOf(page.locator('main'))).map((row) => row[1]))
      .toEqual(['user03@example.testPerson 03']);
    await finish(opened);
  });

  it('posts {action, deviceId}, reloads the list after success, and shows Action failed when refused', async () => {
    const opened = await openConsole('/admin/devices', 'Devices');
    const { page, api } = opened;
    await page.getByRole('button', { name: 'Suspend device-40' }).waitFor();
    const listRequests = () => api.requestsTo('/api/admin/devices').length;
    const before = listRequests();

    await page.getByRole('button', { name: 'Suspend device-40' }).click();
    await page.getByRole('button', { name: 'Activate device-40' }).waitFor();
    // The row says who holds it off (issue #20): an operator's suspension only an operator lifts.
    await expect
      .poll(() => page.getByRole('row', { name: /device-40/ }).innerText())
      .toContain('Suspended by an operator');
    expect(api.requestsTo('/api/admin-device')[0]?.body).toEqual({ action: 'suspend', deviceId: idOf('device-40') });
    expect(listRequests()).toBeGreaterThan(before);

    await page.getByRole('button', { name: 'Activate device-40' }).click();
    await page.getByRole('button', { name: 'Suspend device-40' }).waitFor();
    expect(api.requestsTo('/api/admin-device')[1]?.body).toEqual({ action: 'activate', deviceId: idOf('device-40') });

    // Revoke keys asks first, in a dialog (not window.confirm).
    await page.getByRole('button', { name: 'Revoke keys of device-39' }).click();
    const dialog = page.getByRole('dialog', { name: "Revoke this device's keys?" });
    await dialog.getByRole('button', { name: 'Revoke keys' }).click();
    await expect
      .poll(() => api.requestsTo('/api/admin-device')[2]?.body)
      .toEqual({
        action: 'revoke_keys',
        deviceId: idOf('device-39'),
      });
    await expect.poll(() => page.getByRole('row', { name: /device-39/ }).innerText()).toContain('Keys revoked');
    await expect(page.getByRole('button', { name: 'Revoke keys of device-39' }).isDisabled()).resolves.toBe(true);

    api.fail('/api/admin-device', { status: 500, code: 'internal', message: 'Internal error' });
    await page.getByRole('button', { name: 'Suspend device-37' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Action failed' });
    await alert.waitFor();
    await expect(alert.locator('.qw-alert__title').innerText()).resolves.toBe('Action failed');
    // Nothing changed: the device is still active.
    await expect(page.getByRole('button', { name: 'Suspend device-37' }).isVisible()).resolves.toBe(true);
    expect(api.requestsTo('/api/admin-device')).toHaveLength(4);

    // The next success clears the message.
    api.recover('/api/admin-device');
    await page.getByRole('button', { name: 'Suspend device-37' }).click();
    await page.getByRole('button', { name: 'Activate device-37' }).waitFor();
    await expect(page.getByRole('alert').filter({ hasText: 'Action failed' }).count()).resolves.toBe(0);
    await finish(opened);
  });
});

describe('admin console: Telemetry', () => {
  it("shows the latest row per device and each node's summary; '—' says what the node cannot measure; sorts and pages on the server", async () => {
    const opened = await openConsole('/admin/telemetry', 'Telemetry');
    const { page, api } = opened;
    const nodes = section(page, 'Per node');
    await expect.poll(async () => (await rowsOf(nodes)).map((row) => row[0])).toEqual(['fra-1', 'nyc-1', 'sgp-1']);
    const sgp = (await rowsOf(nodes))[2]!;
    expect(sgp[5]).toContain('This node cannot measure latency.');

    const devices = section(page, 'Latest per device');
    await expect.poll(async () => (await rowsOf(devices)).length).toBe(25);
    // Issue #26: what the rows count, so they are not read as the Overview's devices.
    await expect(
      devices.getByText('One row per device with a key that a node has reported on.', { exact: false }).isVisible(),
    ).resolves.toBe(true);
    const first = (await rowsOf(devices))[0]!;
    // Newest first: the fleet's first placed device, device-01 on fra-1.
    expect(first.slice(0, 2)).toEqual(['device-01', 'fra-1']);
    expect(first[2]).toBe('1.0 MB1,000 packets');
    expect(first[3]).toBe('1.0 MB900 packets');
    expect(first[4]).toBe('10.0 ms');
    expect(first[5]).toBe('198.51.0.0/24');
    expect(first[6]).toBe('Online');

    // A device on sgp-1: packets and latency unmeasured, shown as '—' with the reason as title.
    const sgpRow = devices.getByRole('row', { name: /device-03/ });
    const dashes = sgpRow.locator('.admin-unmeasured');
    await expect(dashes.count()).resolves.toBe(3);
    await expect(dashes.first().getAttribute('title')).resolves.toBe('This node cannot measure packets.');
    await expect(dashes.nth(2).getAttribute('title')).resolves.toBe('This node cannot measure latency.');
    await expect(dashes.first().locator('[aria-hidden="true"]').innerText()).resolves.toBe('—');

    await devices.getByRole('button', { name: /^Latency/ }).click();
    await expect
      .poll(() => api.requestsTo('/api/admin/telemetry').at(-1)?.query)
      .toMatchObject({
        sort: 'latency_ms',
        dir: 'asc',
        page: '1',
      });
    await devices.getByRole('button', { name: 'Next' }).click();
    await expect
      .poll(() => api.requestsTo('/api/admin/telemetry').at(-1)?.query)
      .toMatchObject({
        sort: 'latency_ms',
        page: '2',
      });
    await devices.getByRole('combobox', { name: 'Node' }).selectOption({ label: 'sgp-1' });
    await expect
      .poll(() => api.requestsTo('/api/admin/telemetry').at(-1)?.query)
      .toMatchObject({
        node: idOf('server-sgp'),
        page: '1',
      });
    await finish(opened);
  });
});

describe('admin console: Servers', () => {
  it('formats each card: CPU 1 decimal, loads 2 decimals, memory and disk rounded percent, SSH command, no recent metrics', async () => {
    const opened = await openConsole('/admin/servers', 'Servers');
    const { page, api } = opened;
    const card = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) });
    const fra = card('fra-1');
    await fra.waitFor();
    const figures = async (item: Locator) =>
      item
        .locator('.admin-metric')
        .evaluateAll((metrics) =>
          metrics.map((metric) => [
            metric.querySelector('dt')?.firstChild?.textContent?.trim(),
            metric.querySelector('dd')?.textContent?.trim(),
          ]),
        );
    expect(await figures(fra)).toEqual([
      ['CPU', '37.5%'],
      ['Load', '0.50 / 1.23 / 2.00'],
      ['Memory', '38%'],
      ['Disk', '51%'],
      ['Peers placed', '18'],
      ['Retiring keys', '2'],
      ['Connected', '11'],
    ]);
    // Issue #26: the page's peers, labelled so they reconcile with the Overview's devices.
    await expect(page.locator('.admin-servers__total').innerText()).resolves.toBe(
      '42 peers on 3 servers: 40 devices placed and 2 keys in their 24 h rotation grace.',
    );
    await expect(fra.getByText('(active devices with a key)').isVisible()).resolves.toBe(true);
    await expect(fra.getByText('(in their 24 h rotation grace)').isVisible()).resolves.toBe(true);
    await expect(fra.locator('code').innerText()).resolves.toBe('ssh root@203.0.113.10');
    await expect(fra.innerText()).resolves.toMatch(/Frankfurt/);
    await expect(fra.getByText('primary', { exact: true }).isVisible()).resolves.toBe(true);

    const nyc = card('nyc-1');
    expect((await figures(nyc)).slice(0, 4)).toEqual([
      ['CPU', '5.0%'],
      ['Load', '0.06 / 0.10 / 0.13'],
      ['Memory', '33%'],
      ['Disk', '25%'],
    ]);
    await expect(nyc.locator('code').innerText()).resolves.toBe('ssh ops@198.51.100.7 -p 2222');
    await expect(nyc.getByText('Draining', { exact: true }).isVisible()).resolves.toBe(true);

    const sgp = card('sgp-1');
    await expect(sgp.getByText('No recent metrics.', { exact: true }).isVisible()).resolves.toBe(true);
    expect(await figures(sgp)).toEqual([
      ['Peers placed', '8'],
      ['Retiring keys', '0'],
      ['Connected', '0'],
    ]);
    await expect(sgp.locator('code').innerText()).resolves.toBe('ssh admin@192.0.2.44');

    // Copy puts the command on the clipboard.
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
    await nyc.getByRole('button', { name: 'Copy ssh ops@198.51.100.7 -p 2222' }).click();
    // Issue #26: the button itself says so.
    await nyc.getByRole('button', { name: 'Copied' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe('ssh ops@198.51.100.7 -p 2222');

    // Open again at once; Drain asks first.
    await nyc.getByRole('button', { name: 'Open again' }).click();
    await nyc.getByRole('button', { name: 'Drain' }).waitFor();
    await expect(nyc.getByText('Draining', { exact: true }).count()).resolves.toBe(0);
    expect(api.requestsTo('/api/admin/servers/:id/drain')[0]).toMatchObject({
      path: `/api/admin/servers/${idOf('server-nyc')}/drain`,
      body: { draining: false },
    });
    await fra.getByRole('button', { name: 'Drain' }).click();
    await page.getByRole('dialog', { name: 'Drain fra-1?' }).getByRole('button', { name: 'Drain' }).click();
    await fra.getByText('Draining', { exact: true }).waitFor();
    expect(api.requestsTo('/api/admin/servers/:id/drain')[1]?.body).toEqual({ draining: true });
    await finish(opened);
  });

  it("says 'No recent metrics.' for a sample older than 300 s", async () => {
    const { context, page } = await openPage(browser);
    const session = await installFakeSession(page, 'admin');
    const api = await installFakeAdminApi(page);
    const fra = api.fleet.servers[0]!;
    fra.metrics = { ...fra.metrics!, ts: new Date(Date.now() - 301_000).toISOString() };
    await page.goto(`${site.url}/admin/servers`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'fra-1' }) });
    await card.getByText('No recent metrics.', { exact: true }).waitFor();
    await expect(card.getByText('CPU').count()).resolves.toBe(0);
    await finish({ context, page, api, session });
  });
});

describe('admin console: frame', () => {
  it('View Site opens / and stays on the public site; going back into the console ends it', async () => {
    const opened = await openConsole('/admin/overview', 'Overview');
    const { page } = opened;
    await page.getByRole('link', { name: 'View Site' }).click();
    await page.getByRole('heading', { level: 1, name: 'Private. Fast. Simple.' }).waitFor();
    await page.waitForTimeout(800);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Pricing' }).click();
    await page.waitForTimeout(500);
    expect(new URL(page.url()).pathname).toBe('/pricing');
    // A reload keeps the visit.
    await page.reload();
    await page.waitForTimeout(800);
    expect(new URL(page.url()).pathname).toBe('/pricing');

    // Back in the console, / sends the admin to the console again (spec §2 automatic redirect).
    await page.goto(`${site.url}/admin/devices`);
    await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
    await page.goto(`${site.url}/`);
    await page.waitForURL((url) => url.pathname.startsWith('/admin'));
    await finish(opened);
  });

  it('Sign out goes to /', async () => {
    const opened = await openConsole('/admin/servers', 'Servers');
    const { page } = opened;
    await page.route('**/api/auth/logout', (route) => route.fulfill({ status: 204 }));
    await page.route('**/api/auth/refresh', (route) =>
      route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'not_signed_in', message: 'Not signed in' } }),
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Private. Fast. Simple.' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await opened.context.close();
  });
});

const pages = [
  { path: '/admin/overview', heading: 'Overview', name: 'admin-overview' },
  { path: '/admin/accounts', heading: 'Accounts', name: 'admin-accounts' },
  { path: '/admin/devices', heading: 'Devices', name: 'admin-devices' },
  { path: '/admin/telemetry', heading: 'Telemetry', name: 'admin-telemetry' },
  { path: '/admin/servers', heading: 'Servers', name: 'admin-servers' },
] as const;

/** Waits until the page's data is on screen (no skeleton left). */
async function settled(page: Page): Promise<void> {
  await expect.poll(() => page.locator('main .qw-skeleton').count(), { timeout: 10_000 }).toBe(0);
}

describe('admin console: phones and laptops', () => {
  it('at 390 px: every tab visible, tables as cards with every column and action, no sideways scrolling', async () => {
    for (const { path, heading, name } of pages) {
      const opened = await openConsole(path, heading, 390);
      const { page } = opened;
      await settled(page);
      expect(await sidewaysOverflow(page), `${path} scrolls sideways`).toBeLessThanOrEqual(0);

      const tabs = page.getByRole('navigation', { name: 'Admin area' }).getByRole('link');
      await expect(tabs.allInnerTexts()).resolves.toEqual([
        'Overview',
        'Accounts',
        'Devices',
        'Telemetry',
        'Servers',
        'Analytics',
        'View Site',
      ]);
      for (const tab of await tabs.all()) {
        const box = await tab.boundingBox();
        expect(box, `${await tab.innerText()} is on screen`).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      }

      // Stacked rows: each cell carries its column's name, and every cell and button lies on screen.
      const offscreen = await page.locator('main').evaluate((main) => {
        const problems: string[] = [];
        for (const element of main.querySelectorAll('tbody td, tbody th, button, a, select, input')) {
          // The header row is kept for screen readers only (clipped away) when rows are cards.
          if (element.closest('thead')) continue;
          const box = element.getBoundingClientRect();
          if (box.width === 0 && box.height === 0) continue;
          if (box.left < 0 || box.right > document.documentElement.clientWidth + 0.5)
            problems.push(`${element.tagName} "${(element.textContent ?? '').trim().slice(0, 40)}"`);
        }
        return problems;
      });
      expect(offscreen, `${path}: off screen`).toEqual([]);
      if (path !== '/admin/servers' && path !== '/admin/overview') {
        const headerShown = await page
          .locator('main table thead')
          .first()
          .evaluate((head) => (head as HTMLElement).offsetHeight > 1);
        expect(headerShown).toBe(false);
        await expect(page.locator('main tbody td[data-label]').count()).resolves.toBeGreaterThan(0);
      }
      await screenshot(page, name);
      await finish(opened);
    }
  }, 120_000);

  it('at 1280 px: the same pages, no serious accessibility problems', async () => {
    for (const { path, heading, name } of pages) {
      const opened = await openConsole(path, heading, 1280);
      const { page } = opened;
      await settled(page);
      if (path === '/admin/overview') await page.locator('main canvas').first().waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await expect(seriousAxeViolations(page), path).resolves.toEqual([]);
      await screenshot(page, name);
      await finish(opened);
    }
  }, 120_000);
});
