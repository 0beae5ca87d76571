import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { downloadedText, openPage, siteAndBrowserPerFile } from './support/browser';
import { FakeOrgApi, fakeIds, inviteToken, quotaMessage, type FakeViewer } from './support/fake-org-api';
import { screenshot } from './support/real-stack';
import type { Site } from './support/site';

/**
 * The business screens, /support and /invite in Chromium against a fake of the organization routes
 * (web/test/support/fake-org-api.ts): each screen at 390 and 1280 px (heading, title, no sideways
 * scrolling outside a table region, no serious axe violations, a screenshot), and what the pages do
 * by themselves: spec §5's Add button, the assignee picker for owners and admins only, the server's
 * refusal under the form, the selector remembered per person, members' notes, 'No organization
 * found.', and each step of an invitation link.
 */

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

async function open(viewer: FakeViewer, width = 1280) {
  const { context, page } = await openPage(browser, { width, colorScheme: width < 600 ? 'dark' : 'light' });
  const api = new FakeOrgApi(viewer);
  await api.install(page);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, api, errors, close: () => context.close() };
}

async function visit(page: Page, path: string, heading: string) {
  await page.goto(`${site.url}${path}`);
  await expect.poll(() => page.locator('h1').first().innerText(), { message: path }).toBe(heading);
  await page.waitForLoadState('networkidle');
}

/** A device's name is the value of its inline name box. */
function deviceName(page: Page, name: string) {
  return page.locator(`input[value="${name}"]`);
}

/** Sideways scrolling of the page itself (a table scrolls inside its own region). */
async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function checkScreen(page: Page, name: string, width: number) {
  await expect(page.title()).resolves.toMatch(/ — Quietwire$/);
  expect(await overflow(page), `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
  const violations = await seriousAxeViolations(page);
  expect(violations, `${name} at ${width}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  await screenshot(page, `mock-${name}`);
}

const businessScreens = [
  { name: 'business-overview', path: '/app/business/overview', heading: 'Overview', ready: 'VPN Status' },
  { name: 'business-devices', path: '/app/business/devices', heading: 'Devices', ready: 'Your organization devices' },
  { name: 'business-users', path: '/app/business/users', heading: 'Users', ready: 'noah@example.com' },
  {
    name: 'business-activity',
    path: '/app/business/activity',
    heading: 'Activity',
    ready: 'made Mia Chen admin (was member)',
  },
  { name: 'business-account', path: '/app/business/account', heading: 'Account', ready: 'Manage Users' },
  { name: 'business-billing', path: '/app/business/billing', heading: 'Billing', ready: '$50.00' },
] as const;

describe('business screens at 390 and 1280 px (fake API)', () => {
  for (const width of [390, 1280]) {
    it(`an owner's six screens, ${width} px`, async () => {
      const { page, api, errors, close } = await open('owner', width);
      for (const screen of businessScreens) {
        await visit(page, screen.path, screen.heading);
        await page.getByText(screen.ready).first().waitFor();
        if (screen.name === 'business-overview') {
          // The team lead's summary: seats, devices of the plan, invitations, the latest activity.
          await page.getByRole('heading', { name: 'Your team' }).waitFor();
          await expect
            .poll(() => page.getByRole('list', { name: 'Latest activity' }).getByRole('listitem').count())
            .toBe(5);
          await page
            .getByRole('group', { name: 'Plan and seats' })
            .getByText(/ of 10 seats/)
            .waitFor();
          await page
            .getByRole('group', { name: 'Devices of the plan' })
            .getByText(/ of 10 devices/)
            .waitFor();
        }
        // Every tab is on screen (they wrap at 390 px rather than hide).
        for (const tab of ['Overview', 'Devices', 'Users', 'Activity', 'Account', 'Billing']) {
          const box = await page
            .getByRole('navigation', { name: 'Business area' })
            .getByRole('link', { name: tab })
            .boundingBox();
          expect(box, `${tab} tab at ${width}`).not.toBeNull();
          expect((box?.x ?? 0) + (box?.width ?? 0), `${tab} tab inside ${width} px`).toBeLessThanOrEqual(width);
        }
        await expect(page.locator('#org-selector').inputValue()).resolves.toBe(fakeIds.acme);
        await checkScreen(page, screen.name, width);
      }
      expect(api.unexpected).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 90_000);

    it(`a member's screens, a person without an organization, /support and /invite, ${width} px`, async () => {
      const member = await open('member', width);
      // A member's Overview has the tiles, without the team lead's summary.
      await visit(member.page, '/app/business/overview', 'Overview');
      await member.page.getByText('VPN Status').waitFor();
      await expect(member.page.getByRole('heading', { name: 'Your team' }).count()).resolves.toBe(0);
      // "Am I protected?" (issue #25) on the business Overview too: no tunnel answers here.
      await member.page
        .getByRole('region', { name: 'Am I protected?' })
        .getByText('Not protected: this browser does not reach the internet through a Quietwire tunnel.')
        .waitFor();
      // A member is offered no tab, button or link they could not use.
      await visit(member.page, '/app/business/account', 'Account');
      await member.page.getByRole('link', { name: 'Manage Devices' }).waitFor();
      await expect
        .poll(async () =>
          (await member.page.getByRole('navigation', { name: 'Business area' }).getByRole('link').allInnerTexts())
            // The switch to the other area is no tab of this one.
            .filter((text) => !text.endsWith('→')),
        )
        .toEqual(['Overview', 'Devices', 'Account']);
      await expect(member.page.getByRole('link', { name: 'Manage Users' }).count()).resolves.toBe(0);
      await expect(member.page.getByRole('link', { name: 'Billing' }).count()).resolves.toBe(0);
      await checkScreen(member.page, 'business-account-member', width);
      // Opened by its address anyway, Billing says whose it is, with no Manage Billing to click.
      await visit(member.page, '/app/business/billing', 'Billing');
      await member.page.getByText('Only owners and admins of Acme Research can see its plan and invoices.').waitFor();
      await expect(member.page.getByRole('link', { name: 'Manage Billing' }).count()).resolves.toBe(0);
      // The organization's billing is not even asked for (the personal plan is, for the area switch).
      expect(member.api.requests.filter((r) => r.startsWith('GET /api/billing?org_id='))).toEqual([]);
      await checkScreen(member.page, 'business-billing-member', width);
      await visit(member.page, '/app/business/users', 'Users');
      await member.page.getByText('Only owners and admins of Acme Research can see and manage its users.').waitFor();
      await checkScreen(member.page, 'business-users-member', width);
      await visit(member.page, '/app/business/devices', 'Devices');
      await deviceName(member.page, 'Mia phone').waitFor();
      await checkScreen(member.page, 'business-devices-member', width);
      await member.close();

      const orgless = await open('orgless', width);
      await visit(orgless.page, '/app/business/account', 'Account');
      await orgless.page.getByText('No organization found.').waitFor();
      await checkScreen(orgless.page, 'business-account-empty', width);
      await orgless.close();

      const visitor = await open('none-signed-in', width);
      await visit(visitor.page, '/support', 'How to reach support');
      await checkScreen(visitor.page, 'support', width);
      await visit(visitor.page, `/invite?token=${inviteToken}`, 'Join Acme Research');
      await visitor.page.getByRole('button', { name: 'Create account' }).waitFor();
      await checkScreen(visitor.page, 'invite-sign-up', width);
      expect(visitor.errors).toEqual([]);
      await visitor.close();

      const stranger = await open('stranger', width);
      await visit(stranger.page, `/invite?token=${inviteToken}`, 'Join Acme Research');
      await stranger.page.getByRole('button', { name: 'Join Acme Research' }).waitFor();
      await checkScreen(stranger.page, 'invite-join', width);
      await stranger.close();
    }, 90_000);
  }
});

describe('what the business pages do (fake API)', () => {
  for (const width of [1280, 390]) {
    it(`issue #24: an organization of 1,006 devices pages through them from the server, ${width} px`, async () => {
      const { page, api, errors, close } = await open('owner', width);
      api.addFleet(1_000);
      await visit(page, '/app/business/devices', 'Devices');
      // The pager is above the table and again below it.
      const pager = page.getByRole('navigation', { name: 'Pages of devices', exact: true });
      const lowerPager = page.getByRole('navigation', { name: 'Pages of devices, below the list', exact: true });
      await pager.getByText('Devices 1–50 of 1,006').waitFor();
      await lowerPager.getByText('Devices 1–50 of 1,006').waitFor();
      await deviceName(page, 'Olivia’s laptop').waitFor();
      await deviceName(page, 'Fleet box 43').waitFor();
      await expect(deviceName(page, 'Fleet box 44').count()).resolves.toBe(0);
      expect(api.requests).toContain(`GET /api/orgs/${fakeIds.acme}/devices?page=1&per_page=50`);
      // The quotas stay the whole organization's on any page.
      await expect(page.getByTestId('assignee-quota').innerText()).resolves.toBe('Your organization devices: 1001/5');

      // Ten a page (the screenshots stay readable), then the next page and back.
      await pager.getByLabel('Per page').selectOption('10');
      await pager.getByText('Devices 1–10 of 1,006').waitFor();
      await expect(pager.getByRole('button', { name: 'Previous' }).isDisabled()).resolves.toBe(true);
      await checkScreen(page, 'business-devices-paged', width);
      await lowerPager.getByRole('button', { name: 'Next' }).click();
      await pager.getByText('Devices 11–20 of 1,006').waitFor();
      await pager.getByText('Page 2 of 101').waitFor();
      await deviceName(page, 'Fleet box 4').waitFor();
      await deviceName(page, 'Fleet box 13').waitFor();
      await expect(deviceName(page, 'Fleet box 3').count()).resolves.toBe(0);
      expect(api.requests).toContain(`GET /api/orgs/${fakeIds.acme}/devices?page=2&per_page=10`);
      await checkScreen(page, 'business-devices-paged-2', width);
      await pager.getByRole('button', { name: 'Previous' }).click();
      await pager.getByText('Devices 1–10 of 1,006').waitFor();
      await deviceName(page, 'Olivia’s laptop').waitFor();

      // Searched on the server: a part of the name, from the first page.
      await page.getByRole('searchbox', { name: 'Search devices' }).fill('fleet box 99');
      await page.getByRole('form', { name: 'Search devices' }).getByRole('button', { name: 'Search' }).click();
      await pager.getByText('Devices 1–10 of 11').waitFor();
      await deviceName(page, 'Fleet box 99').waitFor();
      expect(api.requests).toContain(`GET /api/orgs/${fakeIds.acme}/devices?page=1&per_page=10&q=fleet+box+99`);
      // By assignee (owners and admins): Mia's four.
      await page.getByRole('searchbox', { name: 'Search devices' }).fill('');
      await page.getByRole('form', { name: 'Search devices' }).getByRole('button', { name: 'Search' }).click();
      await page.getByLabel('Devices of').selectOption(fakeIds.member);
      await pager.getByText('Devices 1–4 of 4').waitFor();
      await deviceName(page, 'Mia phone').waitFor();
      expect(api.unexpected).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    }, 90_000);
  }

  it('spec §5: Add needs a name, an organization, nothing in flight and fewer than 5 devices for the assignee', async () => {
    const { page, api, errors, close } = await open('owner');
    await visit(page, '/app/business/devices', 'Devices');
    const add = page.getByRole('button', { name: 'Add', exact: true });
    await deviceName(page, 'Mia phone').waitFor();
    // Owners pick the assignee among the organization's users; the platform defaults to linux.
    await expect(page.getByLabel('Platform').inputValue()).resolves.toBe('linux');
    await expect
      .poll(() => page.getByLabel('Assignee').locator('option').allInnerTexts())
      .toEqual(['Olivia Owner (you) — 1/5', 'Adam Admin — 1/5', 'Mia Chen — 4/5']);
    await expect(page.getByTestId('assignee-quota').innerText()).resolves.toBe('Your organization devices: 1/5');
    await expect(add.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('   ');
    await expect(add.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('Mia laptop 2');
    await expect(add.isDisabled()).resolves.toBe(false);

    await page.getByLabel('Assignee').selectOption(fakeIds.member);
    await expect(page.getByTestId('assignee-quota').innerText()).resolves.toBe('Organization devices of Mia Chen: 4/5');
    await add.click();
    await deviceName(page, 'Mia laptop 2').waitFor();
    await expect.poll(() => page.getByTestId('assignee-quota').innerText()).toContain('5/5');
    await page.getByLabel('Name', { exact: true }).fill('One too many');
    // The fifth device was the last one: Add stays off for Mia, the others can still get one.
    await expect(add.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Assignee').selectOption(fakeIds.admin);
    await expect(add.isDisabled()).resolves.toBe(false);
    const table = page.getByRole('table', { name: 'Organization devices' });
    await expect(table.locator('thead th').allInnerTexts()).resolves.toEqual([
      expect.stringContaining('Name'),
      expect.stringContaining('Assignee'),
      expect.stringContaining('Platform'),
      // Issue #26: Status reads Active or Suspended; the key rotation moved to the details under each row.
      expect.stringContaining('Status'),
      expect.stringContaining('Connected'),
      'Actions',
    ]);

    // Suspend asks nothing; Remove asks once.
    const row = page.locator('tr', { has: page.locator('input[value="Build server"]') });
    await row.getByRole('button', { name: 'Suspend' }).click();
    await row.getByRole('button', { name: 'Activate' }).waitFor();
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect(api.unexpected).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it('a refusal is shown as the server says it, under the form; the selector remembers the choice per person', async () => {
    const { page, api, close } = await open('owner');
    // The server refuses what the page cannot know (here the owner's page was opened before Mia got a 5th device).
    await visit(page, '/app/business/devices', 'Devices');
    await deviceName(page, 'Mia phone').waitFor();
    api.devices.unshift({
      ...(api.devices[2] as (typeof api.devices)[number]),
      id: '30000000-0000-4000-8000-000000000001',
      name: 'Elsewhere',
    });
    await page.getByLabel('Assignee').selectOption(fakeIds.member);
    await page.getByLabel('Name', { exact: true }).fill('Sixth');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => page.locator('.devices-error').innerText()).toBe(quotaMessage);

    // Bravo Labs (Suspended, where this person is a member): no picker, a note, and Add disabled with the reason.
    await page.locator('#org-selector').selectOption(fakeIds.bravo);
    await page.getByText('Bravo Labs is Suspended').waitFor();
    await expect(page.getByLabel('Assignee').count()).resolves.toBe(0);
    await page.reload();
    await expect.poll(() => page.locator('#org-selector').inputValue()).toBe(fakeIds.bravo);
    const stored = await page.evaluate(() => ({ ...localStorage }));
    expect(stored).toMatchObject({ [`qw.business.org.${fakeIds.owner}`]: fakeIds.bravo });
    await page.getByLabel('Name', { exact: true }).fill('Blocked');
    // Disabled with the reason instead of a red refusal from the server (issue #15).
    await expect(page.getByRole('button', { name: 'Add', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('device-add-blocked').innerText()).resolves.toBe(
      'Adding a device needs the organization to be Active.',
    );
    await expect(page.locator('.devices-error').count()).resolves.toBe(0);
    await close();
  });

  it('owners invite, revoke, change roles and page through the activity; members see notes', async () => {
    const { page, api, errors, close } = await open('owner');
    await visit(page, '/app/business/users', 'Users');
    await page.getByText('noah@example.com').waitFor();
    await expect(page.getByTestId('org-user-count').innerText()).resolves.toBe('Users: 3 / 10');
    await page.getByLabel('Email', { exact: true }).fill('zoe@example.com');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('rowheader', { name: 'zoe@example.com' }).waitFor();
    await page.locator('tr', { hasText: 'noah@example.com' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('rowheader', { name: 'noah@example.com' }).count()).toBe(0);
    await page.getByLabel('Role of Mia Chen').selectOption('admin');
    await expect.poll(() => api.orgs[0]?.people.find((p) => p.user_id === fakeIds.member)?.role).toBe('admin');
    // The last owner cannot be demoted, so no control offers it (issue #26); the row says why.
    const ownerRow = page.locator('tr', { hasText: 'olivia@example.com' });
    await ownerRow.getByText('The only owner: make someone else an owner first.').waitFor();
    await expect(page.getByLabel('Role of Olivia Owner').count()).resolves.toBe(0);
    await expect(ownerRow.getByRole('button', { name: 'Remove' }).count()).resolves.toBe(0);
    await screenshot(page, 'mock-business-users-sole-owner');

    await visit(page, '/app/business/activity', 'Activity');
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => rows.count()).toBe(7);
    await expect(page.getByRole('button', { name: 'Older' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(() => rows.count()).toBe(25);
    await page.getByLabel('Kind').selectOption('member.role_changed');
    await expect.poll(() => rows.count()).toBe(6);
    await expect(rows.first().innerText()).resolves.toContain('made Mia Chen admin (was member)');
    // The export takes every entry the filter selects, across pages, as CSV.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Acme-Research-activity.csv');
    const csv = (await downloadedText(download)).trimEnd().split('\r\n');
    expect(csv[0]).toBe('When (UTC),Kind,Who,Target,What happened');
    expect(csv).toHaveLength(1 + 6);
    expect(csv.slice(1).every((line) => line.includes(',member.role_changed,'))).toBe(true);
    await page.getByLabel('Person').selectOption(fakeIds.member);
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    expect(api.unexpected).toEqual([]);
    expect(errors).toEqual([]);
    await close();

    const member = await open('member');
    await visit(member.page, '/app/business/activity', 'Activity');
    await member.page.getByText('Only owners and admins of Acme Research can read its activity.').waitFor();
    // A member with a personal plan switches to the personal area from the business area's tabs.
    await member.page.getByRole('link', { name: 'Personal area' }).waitFor();
    await visit(member.page, '/app/business/devices', 'Devices');
    await deviceName(member.page, 'Mia phone').waitFor();
    await expect(member.page.getByLabel('Assignee').count()).resolves.toBe(0);
    await expect(member.page.getByTestId('assignee-quota').innerText()).resolves.toBe('Your organization devices: 4/5');
    expect(member.api.unexpected).toEqual([]);
    await member.close();
  }, 60_000);

  it('an invitation: the invited address joins and lands on business devices; someone else is told to sign out', async () => {
    const stranger = await open('stranger');
    await visit(stranger.page, `/invite?token=${inviteToken}`, 'Join Acme Research');
    await stranger.page.getByRole('button', { name: 'Join Acme Research' }).click();
    await stranger.page.waitForURL(`${site.url}/app/business/devices`);
    await expect.poll(() => stranger.page.locator('#org-selector').inputValue()).toBe(fakeIds.acme);
    await stranger.close();

    const member = await open('member');
    await visit(member.page, `/invite?token=${inviteToken}`, 'Join Acme Research');
    await member.page
      .getByText('You’re signed in as mia@example.com, but this invitation is for sam@example.com.')
      .waitFor();
    await expect(member.page.getByRole('button', { name: 'Sign out' }).count()).resolves.toBe(1);
    await member.close();

    const visitor = await open('none-signed-in');
    await visit(visitor.page, '/invite?token=not-a-real-token-000000', 'Invitation not available');
    await visitor.page.getByText('This invitation does not exist or has expired.').waitFor();
    await visit(visitor.page, `/invite?token=${inviteToken}`, 'Join Acme Research');
    await expect(visitor.page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe('sam@example.com');
    await expect(visitor.page.getByLabel('Email', { exact: true }).getAttribute('readonly')).resolves.toBe('');
    await expect(visitor.page.getByRole('link', { name: 'Sign in' }).getAttribute('href')).resolves.toBe(
      `/login?next=${encodeURIComponent(`/invite?token=${inviteToken}`)}`,
    );
    await visitor.close();
  });
});
