import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  adminEmail,
  apiCall,
  businessAccountViaApi,
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
 * Issue #15's phone layouts against the real backend, at 390 px: every signed-in screen, with data
 * in its tables (a device, an invitation, invoices, activity), has no sideways scrolling (neither
 * the page nor a table), every control is on the screen and not clipped by a scrolling box, and no
 * serious axe violation; the tables are stacked cards with every column named; the business account
 * cards break no word.
 */

const width = 390;
let stack: Stack;
let browser: Browser;
const people = { personal: uniqueEmail('phone-personal'), business: uniqueEmail('phone-business') };

async function tokenOf(email: string): Promise<string> {
  const answer = await apiCall(stack, 'POST', '/api/auth/login', { email, password });
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status}`);
  return answer.data.access_token as string;
}

beforeAll(async () => {
  stack = await startWebStack('webphone', { devices: true });
  await registerTestNode(stack, 'eu-1');
  browser = await launchBrowser();

  await personalCustomerViaApi(stack, people.personal);
  const personal = await tokenOf(people.personal);
  const added = await apiCall(stack, 'POST', '/api/devices', { name: 'Travel laptop', platform: 'macos' }, personal);
  if (added.status !== 201) throw new Error(`device: ${added.status} ${JSON.stringify(added.data)}`);

  await businessAccountViaApi(stack, people.business);
  const business = await tokenOf(people.business);
  const orgs = await apiCall(stack, 'GET', '/api/orgs', undefined, business);
  const orgId = orgs.data.organizations[0].id as string;
  const orgDevice = await apiCall(
    stack,
    'POST',
    `/api/orgs/${orgId}/devices`,
    { name: 'Reception desk', platform: 'windows' },
    business,
  );
  if (orgDevice.status !== 201) throw new Error(`org device: ${orgDevice.status} ${JSON.stringify(orgDevice.data)}`);
  const invited = await apiCall(
    stack,
    'POST',
    `/api/orgs/${orgId}/invitations`,
    { email: uniqueEmail('phone-invitee'), role: 'member' },
    business,
  );
  if (invited.status >= 300) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.data)}`);

  await verifiedAccountViaApi(stack, adminEmail);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** What a phone shows wrongly: sideways scrolling, tables that scroll, controls off the screen or clipped. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.documentElement;
    const screenWidth = root.clientWidth;
    if (root.scrollWidth > screenWidth)
      problems.push(`the page scrolls sideways by ${root.scrollWidth - screenWidth} px`);
    for (const wrap of document.querySelectorAll<HTMLElement>('.qw-table-wrap')) {
      if (wrap.scrollWidth > wrap.clientWidth + 1)
        problems.push(`table "${wrap.innerText.slice(0, 40)}" scrolls sideways`);
    }
    const nameOf = (element: Element) =>
      (
        element.getAttribute('aria-label') ||
        (element as HTMLElement).innerText ||
        element.getAttribute('name') ||
        element.tagName
      )
        .trim()
        .slice(0, 60);
    /** Hidden on purpose: not rendered, or visually hidden (clipped to 1 px) until focused. */
    const hiddenOnPurpose = (element: Element) => {
      if (element.closest('dialog:not([open])') || element.classList.contains('qw-skip-link')) return true;
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.display === 'none' || style.visibility === 'hidden') return true;
        const box = node.getBoundingClientRect();
        if (style.position === 'absolute' && box.width <= 1 && box.height <= 1) return true;
      }
      return false;
    };
    const controls = document.querySelectorAll<HTMLElement>(
      'a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], [tabindex="0"]',
    );
    for (const control of controls) {
      if (hiddenOnPurpose(control)) continue;
      const box = control.getBoundingClientRect();
      const name = nameOf(control);
      if (box.width < 1 || box.height < 1) {
        problems.push(`"${name}" has no size`);
        continue;
      }
      if (box.left < -0.5 || box.right > screenWidth + 0.5) {
        problems.push(`"${name}" is off the screen (${Math.round(box.left)}–${Math.round(box.right)} px)`);
        continue;
      }
      for (let node = control.parentElement; node && node !== document.body; node = node.parentElement) {
        if (getComputedStyle(node).overflowX === 'visible') continue;
        const frame = node.getBoundingClientRect();
        if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5) {
          problems.push(`"${name}" is clipped by .${node.className}`);
          break;
        }
      }
    }
    return problems;
  });
}

/** Every data row is a card: each cell visible under its column's name. */
function unlabelledCells(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.qw-table tbody tr:not([aria-hidden]) > :is(td, th)'))
      .filter((cell) => !cell.classList.contains('qw-table__empty'))
      .filter((cell) => !cell.dataset.label || cell.getBoundingClientRect().width < 1)
      .map((cell) => cell.innerText.slice(0, 40)),
  );
}

/** Words split over two lines inside `selector` (broken mid-word). */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((within) => {
    const broken: string[] = [];
    for (const element of document.querySelectorAll(within)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        // A line may end after a hyphen ('phone-business-…'); inside a word it may not.
        for (const match of text.matchAll(/[^\s-]+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);
}

type Screen = { name: string; path: string; heading: string; ready?: string; actions?: readonly string[] };

async function check(page: Page, screen: Screen) {
  await page.goto(`${stack.publicUrl}${screen.path}`);
  await expect.poll(() => page.locator('h1').first().innerText(), { message: screen.name }).toBe(screen.heading);
  if (screen.ready) await page.getByText(screen.ready).first().waitFor({ timeout: 20_000 });
  await page.waitForLoadState('networkidle');
  await expect(layoutProblems(page), `${screen.name} at ${width} px`).resolves.toEqual([]);
  await expect(unlabelledCells(page), `${screen.name}: cells without their column's name`).resolves.toEqual([]);
  for (const action of screen.actions ?? []) {
    const control = page.getByRole('main').getByRole('button', { name: action, exact: true });
    const link = page.getByRole('main').getByRole('link', { name: action, exact: true });
    const target = (await control.count()) > 0 ? control.first() : link.first();
    await expect(target.isVisible(), `${screen.name}: ${action}`).resolves.toBe(true);
  }
  const violations = await seriousAxeViolations(page);
  expect(violations, `${screen.name}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  await screenshot(page, `phone-${screen.name}`);
}

const personalScreens: Screen[] = [
  { name: 'personal-overview', path: '/app/personal/overview', heading: 'Overview', ready: 'VPN Status' },
  {
    name: 'personal-devices',
    path: '/app/personal/devices',
    heading: 'Devices',
    ready: 'Not connected',
    actions: ['Config', 'QR code', 'Suspend', 'Remove', 'Request key', 'Rename Travel laptop'],
  },
  { name: 'personal-account', path: '/app/personal/account', heading: 'Account', actions: ['Save'] },
  { name: 'personal-billing', path: '/app/personal/billing', heading: 'Billing', ready: '$7.99' },
  {
    name: 'test-portal',
    path: '/billing/test-portal?return=/app/personal/billing',
    heading: 'Billing portal',
    ready: '$7.99',
    actions: ['Cancel subscription'],
  },
];

const businessScreens: Screen[] = [
  { name: 'business-overview', path: '/app/business/overview', heading: 'Overview', ready: 'VPN Status' },
  {
    name: 'business-devices',
    path: '/app/business/devices',
    heading: 'Devices',
    ready: 'Not connected',
    actions: ['Config', 'QR code', 'Suspend', 'Remove', 'Request key', 'Rename Reception desk'],
  },
  {
    name: 'business-users',
    path: '/app/business/users',
    heading: 'Users',
    ready: 'phone-invitee',
    actions: ['Revoke'],
  },
  { name: 'business-activity', path: '/app/business/activity', heading: 'Activity', ready: 'Reception desk' },
  {
    name: 'business-account',
    path: '/app/business/account',
    heading: 'Account',
    ready: 'Business 10',
    actions: ['Manage Users', 'Manage Devices', 'Billing', 'Support'],
  },
  { name: 'business-billing', path: '/app/business/billing', heading: 'Billing', ready: '$50.00' },
];

const adminScreens: Screen[] = [
  { name: 'admin-overview', path: '/admin/overview', heading: 'Overview' },
  { name: 'admin-accounts', path: '/admin/accounts', heading: 'Accounts', ready: people.business },
  { name: 'admin-devices', path: '/admin/devices', heading: 'Devices', ready: 'Travel laptop' },
  { name: 'admin-telemetry', path: '/admin/telemetry', heading: 'Telemetry' },
  { name: 'admin-servers', path: '/admin/servers', heading: 'Servers' },
];

const publicScreens: Screen[] = [
  { name: 'home', path: '/', heading: 'Private. Fast. Simple.', ready: 'Features compared with other VPN providers' },
  { name: 'pricing', path: '/pricing', heading: 'Plans and prices', ready: 'VPN providers compared' },
  {
    name: 'faq',
    path: '/faq',
    heading: 'Frequently asked questions',
    ready: 'Monthly prices: Quietwire and comparable plans elsewhere',
  },
];

describe(`signed-in screens at ${width} px`, () => {
  it('public pages: the provider comparison tables are labelled cards too', async () => {
    const { page, errors, close } = await newPage(browser, { width });
    for (const screen of publicScreens) await check(page, screen);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  for (const [who, email, screens] of [
    ['personal', people.personal, personalScreens],
    ['business', people.business, businessScreens],
    ['admin', adminEmail, adminScreens],
  ] as const) {
    it(`${who}: no sideways scrolling, tables as labelled cards, every action on the screen`, async () => {
      const { page, errors, close } = await newPage(browser, { width });
      await signInThroughPage(page, stack.publicUrl, email);
      for (const screen of screens) await check(page, screen);
      if (who === 'business') {
        await page.goto(`${stack.publicUrl}/app/business/account`);
        await page.getByText('Business 10').first().waitFor();
        await expect(brokenWords(page, '.org-cards'), 'words broken mid-word on the account cards').resolves.toEqual(
          [],
        );
      }
      expect(errors).toEqual([]);
      await close();
    }, 120_000);
  }

  it('the confirmation modals fit the phone: Request key and Remove say what happens, Cancel keeps the device', async () => {
    const { page, errors, close } = await newPage(browser, { width });
    await signInThroughPage(page, stack.publicUrl, people.personal);
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    const card = page.locator('tr', { has: page.locator('input[value="Travel laptop"]') });
    for (const [action, title, says] of [
      ['Request key', 'Request a new key for Travel laptop?', 'The old configuration stops working'],
      ['Remove', 'Remove Travel laptop?', 'Its configuration stops working at once'],
    ] as const) {
      await card.getByRole('button', { name: action }).click();
      const dialog = page.getByRole('dialog', { name: title });
      await dialog.waitFor();
      await expect(dialog.innerText()).resolves.toContain(says);
      await expect(layoutProblems(page)).resolves.toEqual([]);
      await screenshot(page, `phone-modal-${action.toLowerCase().replace(' ', '-')}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
    await expect(card.count()).resolves.toBe(1);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);
});
