import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import {
  adminEmail,
  apiCall,
  businessAccountViaApi,
  newPage,
  personalCustomerViaApi,
  screenshot,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';
import { launchBrowser } from './support/browser';

/**
 * Every screen of the accounts, billing and organizations issues at 360 and 1280 px against the real backend: a
 * heading, a page title, no sideways scrolling, no serious axe-core violations (light at 1280,
 * dark at 360), and a screenshot in test-results/screenshots.
 */

let stack: Stack;
let browser: Browser;
const people = { personal: uniqueEmail('screens-personal'), business: uniqueEmail('screens-business') };
let testCheckoutId = '';

beforeAll(async () => {
  stack = await startWebStack('webscreens', { devices: true });
  browser = await launchBrowser();
  await personalCustomerViaApi(stack, people.personal);
  await businessAccountViaApi(stack, people.business);
  // An address on the admin list has the rights once its owner has confirmed it.
  await verifiedAccountViaApi(stack, adminEmail);
  testCheckoutId = (await apiCall(stack, 'POST', '/api/checkout', { plan_code: 'business50', quantity: 1 })).data
    .session_id as string;
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

type Screen = { name: string; path: string | (() => string); heading: string };

async function check(page: Page, screen: Screen, width: number) {
  const path = typeof screen.path === 'function' ? screen.path() : screen.path;
  await page.goto(`${stack.publicUrl}${path}`);
  await expect
    .poll(() => page.locator('h1').first().innerText(), { message: `${screen.name} at ${width}` })
    .toBe(screen.heading);
  // Let data-driven parts settle before measuring.
  await page.waitForLoadState('networkidle');
  await expect(page.title()).resolves.toMatch(/ — Quietwire$/);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, `${screen.name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
  const violations = await seriousAxeViolations(page);
  expect(violations, `${screen.name} at ${width}: ${JSON.stringify(violations, null, 2)}`).toEqual([]);
  await screenshot(page, screen.name);
}

const signedOutScreens: Screen[] = [
  { name: 'login', path: '/login', heading: 'Sign in' },
  { name: 'login-notice', path: '/login?message=verification_expired', heading: 'Sign in' },
  { name: 'forgot-password', path: '/forgot-password', heading: 'Reset your password' },
  { name: 'reset-password', path: '/reset-password?token=abc', heading: 'Set a new password' },
  { name: 'auth-callback', path: '/auth/callback', heading: 'Verification failed' },
  { name: 'post-checkout-empty', path: '/post-checkout', heading: 'Create your account' },
  { name: 'test-checkout', path: () => `/test-checkout/${testCheckoutId}`, heading: 'Checkout' },
  { name: 'support', path: '/support', heading: 'How to reach support' },
  { name: 'invite-no-token', path: '/invite', heading: 'Invitation not available' },
];

const personalScreens: Screen[] = [
  { name: 'personal-overview', path: '/app/personal/overview', heading: 'Overview' },
  { name: 'personal-devices', path: '/app/personal/devices', heading: 'Devices' },
  { name: 'personal-account', path: '/app/personal/account', heading: 'Account' },
  { name: 'personal-billing', path: '/app/personal/billing', heading: 'Billing' },
  { name: 'test-portal', path: '/billing/test-portal?return=/app/personal/billing', heading: 'Billing portal' },
  { name: 'dashboard', path: '/dashboard', heading: 'Dashboard' },
];

const businessScreens: Screen[] = [
  { name: 'business-overview', path: '/app/business/overview', heading: 'Overview' },
  { name: 'business-devices', path: '/app/business/devices', heading: 'Devices' },
  { name: 'business-users', path: '/app/business/users', heading: 'Users' },
  { name: 'business-activity', path: '/app/business/activity', heading: 'Activity' },
  { name: 'business-account', path: '/app/business/account', heading: 'Account' },
  { name: 'business-billing', path: '/app/business/billing', heading: 'Billing' },
];

const adminScreens: Screen[] = [
  { name: 'admin-overview', path: '/admin/overview', heading: 'Overview' },
  { name: 'admin-accounts', path: '/admin/accounts', heading: 'Accounts' },
];

describe('screens at 360 and 1280 px', () => {
  for (const width of [360, 1280]) {
    const colorScheme = width === 360 ? 'dark' : 'light';

    it(`signed out, ${width} px (${colorScheme})`, async () => {
      const { page, errors, close } = await newPage(browser, { width, colorScheme });
      for (const screen of signedOutScreens) await check(page, screen, width);
      expect(errors).toEqual([]);
      await close();
      // Nine screens, each checked for accessibility and photographed: over 30 s on a busy machine.
    }, 90_000);

    for (const [who, email, screens] of [
      ['personal', people.personal, personalScreens],
      ['business', people.business, businessScreens],
      ['admin', adminEmail, adminScreens],
    ] as const) {
      it(`${who} area, ${width} px (${colorScheme})`, async () => {
        const { page, errors, close } = await newPage(browser, { width, colorScheme });
        await signInThroughPage(page, stack.publicUrl, email);
        for (const screen of screens) await check(page, screen, width);
        expect(errors).toEqual([]);
        await close();
        // Several screens, each checked for accessibility and photographed: a minute on a busy machine.
      }, 90_000);
    }
  }
});
