import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  adminEmail,
  apiCall,
  newPage,
  password,
  personalCustomerViaApi,
  screenshot,
  signInThroughPage,
  signUpViaApi,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';

/**
 * Issue #26 in Chromium against the real services: an operator opens a person's page from the
 * Users table and reads their profile, plan, devices, invoices, sessions and audit, at 1280 and
 * 390 px, without sideways scrolling and with no serious axe violations.
 */
let stack: Stack;
let browser: Browser;
const customer = uniqueEmail('person-page');
let customerId: string;

beforeAll(async () => {
  stack = await startWebStack('webperson', { devices: true });
  await registerTestNode(stack, 'eu-person-1');
  browser = await launchBrowser();
  await verifiedAccountViaApi(stack, adminEmail);
  await personalCustomerViaApi(stack, customer);
  const login = await apiCall(stack, 'POST', '/api/auth/login', { email: customer, password });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.data)}`);
  customerId = login.data.user.id as string;
  const added = await apiCall(
    stack,
    'POST',
    '/api/devices',
    { name: 'Dana MacBook F', platform: 'macos' },
    login.data.access_token as string,
  );
  if (added.status !== 201) throw new Error(`add device: ${added.status} ${JSON.stringify(added.data)}`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("a person's page in the console", () => {
  for (const width of [1280, 390]) {
    it(`opens from the Users table and shows everything about them at ${width} px`, async () => {
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/accounts`);
      await admin.page.getByRole('link', { name: customer }).click();
      await admin.page.waitForURL((url) => url.pathname === `/admin/accounts/users/${customerId}`);
      await admin.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      const section = (name: string) => admin.page.locator(`section[aria-labelledby="person-${name.toLowerCase()}"]`);
      await expect(section('Profile').innerText()).resolves.toContain(customer);
      await expect(section('Plan').innerText()).resolves.toContain('Personal');
      await expect(section('Devices').innerText()).resolves.toContain('Dana MacBook F');
      await expect(section('Devices').innerText()).resolves.toContain('eu-person-1');
      await expect(section('Invoices').innerText()).resolves.toMatch(/\$\d/);
      await expect(section('Sessions').innerText()).resolves.toMatch(/\d sessions?/);
      expect(
        await admin.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person');
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }

  for (const width of [1280, 390]) {
    it(`resends the verification mail and ends every session, each confirmed, at ${width} px`, async () => {
      const email = uniqueEmail('person-actions');
      const token = await signUpViaApi(stack, email);
      const id = (await apiCall(stack, 'GET', '/api/me', undefined, token)).data.user.id as string;
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/${id}`);
      await admin.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();

      await admin.page.getByRole('button', { name: 'Resend verification' }).click();
      const dialog = admin.page.getByRole('dialog');
      await expect(dialog.innerText()).resolves.toContain(`Send the verification mail to ${email}?`);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person-resend-dialog');
      await dialog.getByRole('button', { name: 'Send' }).click();
      await admin.page.getByText(`A new verification link went to ${email}.`).waitFor();
      await stack.smtp.waitFor(
        (m) =>
          (m.to as { text: string } | undefined)?.text.includes(email) === true &&
          m.subject === 'Confirm your email for Quietwire',
      );

      await admin.page.getByRole('button', { name: 'End sessions' }).click();
      await expect(dialog.innerText()).resolves.toContain(`End every session of ${email}?`);
      await dialog.getByRole('button', { name: 'End sessions' }).click();
      await admin.page.getByText(`Ended 1 session of ${email}`).waitFor();
      await expect
        .poll(async () => (await apiCall(stack, 'GET', '/api/me', undefined, token)).status, {
          timeout: 5_000,
        })
        .toBe(401);
      // The page says it: no session left, and both actions in the audit as sentences.
      await expect
        .poll(() => admin.page.locator('section[aria-labelledby="person-sessions"]').innerText())
        .toContain('0 sessions');
      const audit = admin.page.locator('section[aria-labelledby="person-audit"]');
      await expect(audit.innerText()).resolves.toContain(`${adminEmail} ended every session of ${email}.`);
      await expect(audit.innerText()).resolves.toContain(`${adminEmail} sent ${email} a new verification link.`);
      expect(
        await admin.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person-actions');
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }

  for (const width of [1280, 390]) {
    it(`refunds the latest payment after a confirmation, and offers no second, at ${width} px`, async () => {
      const email = uniqueEmail('person-refund');
      await personalCustomerViaApi(stack, email);
      const login = await apiCall(stack, 'POST', '/api/auth/login', { email, password });
      const id = login.data.user.id as string;
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/${id}`);
      await admin.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      await admin.page.getByRole('button', { name: 'Refund latest payment' }).click();
      const dialog = admin.page.getByRole('dialog');
      await expect(dialog.innerText()).resolves.toContain(`Refund the latest payment of ${email}?`);
      await dialog.getByRole('button', { name: 'Refund' }).click();
      const result = admin.page.locator('.qw-alert', { hasText: /Done|Action failed/ });
      await result.waitFor();
      expect(await result.innerText()).toMatch(/Refunded \$\d+\.\d\d to /);
      expect(await result.innerText()).toContain(email);
      // The plan has ended: the page says so and offers no second refund.
      await admin.page.getByText('No personal plan.').waitFor();
      await expect(admin.page.getByRole('button', { name: 'Refund latest payment' }).count()).resolves.toBe(0);
      const audit = admin.page.locator('section[aria-labelledby="person-audit"]');
      await expect(audit.innerText()).resolves.toContain(`${adminEmail} refunded $`);
      expect(
        await admin.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person-refund');
      expect(admin.errors).toEqual([]);
      await admin.close();
    });
  }

  for (const width of [1280, 390]) {
    it(`suspends an account with a reason the person reads on their dashboard, then lifts it, at ${width} px`, async () => {
      const email = uniqueEmail('person-suspend');
      await personalCustomerViaApi(stack, email);
      const login = await apiCall(stack, 'POST', '/api/auth/login', { email, password });
      const id = login.data.user.id as string;
      const reason = 'A chargeback on your card is under review.';
      const admin = await newPage(browser, { width });
      await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
      await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/${id}`);
      await admin.page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      await admin.page.getByRole('button', { name: 'Suspend account' }).click();
      const dialog = admin.page.getByRole('dialog');
      await expect(dialog.innerText()).resolves.toContain(`Suspend the account of ${email}?`);
      // No reason, no suspension: the field says why.
      await dialog.getByRole('button', { name: 'Suspend' }).click();
      await dialog.getByText('Say why: the person reads it on their dashboard.').waitFor();
      await dialog.getByLabel('Reason').fill(reason);
      expect(await seriousAxeViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, 'admin-person-suspend-dialog');
      await dialog.getByRole('button', { name: 'Suspend' }).click();
      await admin.page.getByText(`The account of ${email} is suspended`).waitFor();
      const profile = admin.page.locator('section[aria-labelledby="person-profile"]');
      await expect.poll(() => profile.innerText()).toContain(reason);
      await admin.page.getByRole('button', { name: 'Lift suspension' }).waitFor();
      await screenshot(admin.page, 'admin-person-suspended');

      // The person signs in and reads why, in the operator's words.
      const person = await newPage(browser, { width });
      await signInThroughPage(person.page, stack.publicUrl, email);
      const banner = person.page.locator('.qw-alert', { hasText: 'Quietwire suspended your account' });
      await banner.waitFor();
      await expect(banner.innerText()).resolves.toContain(reason);
      expect(
        await person.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(person.page)).toEqual([]);
      await screenshot(person.page, 'account-suspended-banner');

      await admin.page.getByRole('button', { name: 'Lift suspension' }).click();
      await expect(dialog.innerText()).resolves.toContain(`Lift the suspension of ${email}?`);
      await dialog.getByRole('button', { name: 'Lift suspension' }).click();
      await admin.page.getByText(`The account of ${email} is active again`).waitFor();
      await admin.page.getByRole('button', { name: 'Suspend account' }).waitFor();
      const audit = admin.page.locator('section[aria-labelledby="person-audit"]');
      await expect(audit.innerText()).resolves.toContain(
        `${adminEmail} suspended the account of ${email}: “${reason}”`,
      );
      await expect(audit.innerText()).resolves.toContain(
        `${adminEmail} lifted the suspension of the account of ${email}.`,
      );
      await person.page.reload();
      await person.page.getByRole('heading', { level: 1 }).first().waitFor();
      await expect(banner.count()).resolves.toBe(0);
      expect(admin.errors).toEqual([]);
      expect(person.errors).toEqual([]);
      await admin.close();
      await person.close();
    });
  }

  it('says so for an id nobody has', async () => {
    const admin = await newPage(browser);
    await signInThroughPage(admin.page, stack.publicUrl, adminEmail);
    await admin.page.goto(`${stack.publicUrl}/admin/accounts/users/not-an-id`);
    await admin.page.getByText('No such account').waitFor();
    await admin.close();
  });
});
