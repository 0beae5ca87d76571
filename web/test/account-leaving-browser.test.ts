import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@qw/testkit';
import type { Client, Stack } from '../../services/gateway/test/support/stack.ts';
import { startStack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { ownOrganization } from '../../services/gateway/test/support/organizations.ts';
import { seriousAxeViolations } from './support/axe.ts';
import { downloadedText, launchBrowser } from './support/browser.ts';
import { newPage, pathOf, screenshot, signInThroughPage } from './support/real-stack.ts';

/**
 * Issue #26, Leaving, in Chromium on the real services at 1280 and 390 px: the Account page's
 * "Your data" downloads a JSON file with the account and its devices (no private key); Delete asks
 * for the password, says so when it is wrong, then deletes: the page lands on "Your account has
 * been deleted", the mail goes out, and the password no longer signs in. Axe finds nothing serious
 * on the card, the dialog or the last page. On the business Account page, the only owner of an
 * organization with a running plan is told what to do first and keeps the account. Photos in
 * test-results/screenshots/account-leaving-*.png.
 */
let stack: Stack;
let browser: Browser;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'webleaving', listen: true, extra: deviceServices });
  await registerTestNode(stack, 'eu-1');
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('leaving from the Account page', () => {
  for (const width of [1280, 390]) {
    it(`exports the data and deletes the account at ${width} px`, async () => {
      const email = `leaver-${width}@example.com`;
      const customer: Client = await customerWithPlan(stack, email, 'personal', password);
      const device = await deviceAdded(customer, { name: `Leaver laptop ${width}`, platform: 'linux' });

      const { page, errors, close } = await newPage(browser, { width });
      try {
        await signInThroughPage(page, stack.publicUrl, email, password);
        await page.goto(`${stack.publicUrl}/app/personal/account`);
        const card = page.getByRole('region', { name: 'Your data', exact: true });
        await card.waitFor();
        expect(await seriousAxeViolations(page)).toEqual([]);

        const download = page.waitForEvent('download');
        await card.getByRole('button', { name: 'Download my data' }).click();
        const file = await download;
        expect(file.suggestedFilename()).toMatch(/^quietwire-data-\d{4}-\d{2}-\d{2}\.json$/);
        const text = await downloadedText(file);
        const data = JSON.parse(text);
        expect(data.account.email).toBe(email);
        expect(data.devices).toEqual([
          expect.objectContaining({ name: `Leaver laptop ${width}`, public_key: device.public_key }),
        ]);
        expect(text).not.toMatch(/private|preshared|PrivateKey/i);
        await expect.poll(() => card.getByRole('status').innerText()).toMatch(/^Downloaded quietwire-data-/);
        await card.getByRole('heading', { name: 'Your data', exact: true }).scrollIntoViewIfNeeded();
        await screenshot(page, 'account-leaving-your-data');

        await card.getByRole('button', { name: 'Delete account…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
        await dialog.waitFor();
        await dialog.getByLabel('Password', { exact: true }).fill('not my password');
        await dialog.getByRole('button', { name: 'Delete my account' }).click();
        await expect.poll(() => dialog.getByText('That password is not right.').count()).toBe(1);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, 'account-leaving-wrong-password');

        await dialog.getByLabel('Password', { exact: true }).fill(password);
        await dialog.getByRole('button', { name: 'Delete my account' }).click();
        await page.getByRole('heading', { name: 'Your account has been deleted' }).waitFor();
        expect(pathOf(page)).toBe('/account-deleted');
        expect(await page.getByText(`We sent a confirmation to ${email}.`).count()).toBe(1);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, 'account-leaving-deleted');

        await stack.smtp.waitFor(
          (m) =>
            m.subject === 'Your Quietwire account has been deleted' &&
            (m.to as { text: string } | undefined)?.text === email,
        );
        await eventually(async () => {
          const rows = await stack.services
            .provisioning!.db.selectFrom('devices')
            .select('id')
            .where('id', '=', device.id)
            .execute();
          return rows.length === 0;
        }, 15_000);
        await page.goto(`${stack.publicUrl}/login`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByText('Invalid email or password.').count()).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 90_000);
  }

  for (const width of [1280, 390]) {
    it(`tells the only owner of a paid organization what to do first at ${width} px`, async () => {
      const email = `lead-${width}@example.com`;
      const lead = await customerWithPlan(stack, email, 'business10', password);
      await ownOrganization(lead);
      const { page, errors, close } = await newPage(browser, { width });
      try {
        await signInThroughPage(page, stack.publicUrl, email, password);
        await page.goto(`${stack.publicUrl}/app/business/account`);
        const card = page.getByRole('region', { name: 'Your data', exact: true });
        await card.waitFor();
        await card.getByRole('button', { name: 'Delete account…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
        await dialog.getByLabel('Password', { exact: true }).fill(password);
        await dialog.getByRole('button', { name: 'Delete my account' }).click();
        const refusal = dialog.getByRole('alert');
        await expect
          .poll(() => refusal.innerText())
          .toMatch(
            /^You are the only owner of .+, and its plan is still active\. Cancel its plan before deleting your account\.$/,
          );
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, 'account-leaving-last-owner');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        expect((await lead.call('GET', '/api/me')).statusCode).toBe(200);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 90_000);
  }
});
