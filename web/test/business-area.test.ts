import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { deviceServices } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import { newPage, screenshot, uniqueEmail } from './support/real-stack';

/**
 * Issue #12 in Chromium against the real services (identity, billing with the local test provider,
 * provisioning, telemetry, the gateway serving web/dist): an owner buys Business 10, invites a
 * member, the member joins from the emailed link (creating the account on the way), adds a device
 * for themselves, the owner sees it and suspends it, and the Activity page shows each step.
 */

let stack: Stack;
let browser: Browser;
const password = 'correct horse battery staple';

beforeAll(async () => {
  stack = await startStack({ label: 'webbusiness', listen: true, extra: deviceServices });
  await registerTestNode(stack, 'eu-1');
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const deviceRow = (page: Page, name: string) => page.locator('tr', { has: page.locator(`input[value="${name}"]`) });

async function buyBusiness10(page: Page, email: string): Promise<void> {
  await page.goto(`${stack.publicUrl}/pricing`);
  await page.getByRole('button', { name: 'Get Business 10', exact: true }).click();
  await page.waitForURL(/\/test-checkout\/cs_test_[0-9a-f]+$/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Pay $50.00' }).click();
  await page.waitForURL(/\/post-checkout\?sid=cs_test_[0-9a-f]+$/);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${stack.publicUrl}/app/business/devices`);
}

describe('the business area on the real stack', () => {
  it('owner buys Business 10 → invites → member joins from the mail → adds a device → owner suspends it → Activity shows each step', async () => {
    const ownerEmail = uniqueEmail('olivia');
    const memberEmail = uniqueEmail('mia');
    const owner = await newPage(browser);
    await buyBusiness10(owner.page, ownerEmail);
    // The organization the purchase made is chosen; the owner gets the picker.
    await expect.poll(() => owner.page.locator('#org-selector option').count(), { timeout: 15_000 }).toBe(1);
    await owner.page.getByLabel('Assignee').waitFor();
    await expect(owner.page.getByTestId('assignee-quota').innerText()).resolves.toBe('Your organization devices: 0/5');

    // Invite the member from Users.
    await owner.page.getByRole('link', { name: 'Users', exact: true }).click();
    await owner.page.waitForURL('**/app/business/users');
    await owner.page.getByRole('rowheader', { name: new RegExp(ownerEmail.replace(/[.+]/g, '\\$&')) }).waitFor();
    await owner.page.getByLabel('Email', { exact: true }).fill(memberEmail);
    await owner.page.getByRole('button', { name: 'Invite' }).click();
    await owner.page.getByRole('rowheader', { name: memberEmail }).waitFor();
    await expect(seriousAxeViolations(owner.page)).resolves.toEqual([]);
    await screenshot(owner.page, 'real-business-users');

    // The member opens the emailed link, creates the account with the invited address, and joins.
    const mail = await stack.smtp.waitFor(
      (m) =>
        (m.to as { text: string } | undefined)?.text.includes(memberEmail) === true &&
        /\/invite\?token=/.test(m.text ?? ''),
    );
    const link = /https?:\/\/\S+\/invite\?token=[\w-]+/.exec(mail.text ?? '')?.[0];
    expect(link).toBeDefined();
    const member = await newPage(browser);
    await member.page.goto(link as string);
    await expect.poll(() => member.page.locator('h1').innerText()).toMatch(/^Join ./);
    const organization = (await member.page.locator('h1').innerText()).replace(/^Join /, '');
    expect(organization.length).toBeGreaterThan(0);
    await expect(member.page.getByLabel('Email', { exact: true }).inputValue()).resolves.toBe(memberEmail);
    await member.page.getByLabel('Password').fill(password);
    await member.page.getByRole('button', { name: 'Create account' }).click();
    await member.page.getByRole('button', { name: `Join ${organization}` }).click();
    await member.page.waitForURL(`${stack.publicUrl}/app/business/devices`);

    // A member adds a device for themselves: no picker, their own quota.
    await expect
      .poll(() => member.page.getByTestId('assignee-quota').innerText())
      .toBe('Your organization devices: 0/5');
    await expect(member.page.getByLabel('Assignee').count()).resolves.toBe(0);
    await expect(member.page.getByLabel('Platform').inputValue()).resolves.toBe('linux');
    const add = member.page.getByRole('button', { name: 'Add', exact: true });
    await expect(add.isDisabled()).resolves.toBe(true);
    await member.page.getByLabel('Name', { exact: true }).fill('Mia laptop');
    await add.click();
    await deviceRow(member.page, 'Mia laptop').waitFor();
    await expect
      .poll(() => member.page.getByTestId('assignee-quota').innerText())
      .toBe('Your organization devices: 1/5');
    await screenshot(member.page, 'real-business-devices-member');
    // Members read neither the user list, the activity nor the billing: no tab offers them, and
    // the user list opened by its address says why.
    const tabs = member.page.getByRole('navigation', { name: 'Business area' });
    for (const tab of ['Users', 'Activity', 'Billing'])
      await expect(tabs.getByRole('link', { name: tab, exact: true }).count(), tab).resolves.toBe(0);
    await member.page.goto(`${stack.publicUrl}/app/business/users`);
    await member.page.getByText(`Only owners and admins of ${organization} can see and manage its users.`).waitFor();
    expect(member.errors).toEqual([]);

    // The owner sees the member's device, assigned to them, and suspends it.
    await owner.page.getByRole('link', { name: 'Devices', exact: true }).click();
    const row = deviceRow(owner.page, 'Mia laptop');
    await row.waitFor({ timeout: 15_000 });
    await expect.poll(() => row.innerText(), { timeout: 35_000 }).toContain(memberEmail);
    await row.getByRole('button', { name: 'Suspend' }).click();
    await row.getByRole('button', { name: 'Activate' }).waitFor();
    await expect.poll(() => row.innerText()).toMatch(/Linux\s+Suspended/);
    await screenshot(owner.page, 'real-business-devices');

    // Activity: invited, joined, device added, device suspended (the device events reach identity's log by the bus).
    await owner.page.getByRole('link', { name: 'Activity', exact: true }).click();
    await owner.page.waitForURL('**/app/business/activity');
    // The Kind column (the last); each row reads as a sentence.
    const kinds = () => owner.page.locator('table tbody tr td:last-child').allInnerTexts();
    await expect
      .poll(
        async () => {
          await owner.page.reload();
          await owner.page.locator('table tbody tr').first().waitFor();
          return kinds();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toEqual(expect.arrayContaining(['Member invited', 'Member joined', 'Device added', 'Device suspended']));
    const text = await owner.page.locator('table tbody').innerText();
    expect(text).toContain(memberEmail);
    expect(text).toContain('Mia laptop');
    expect(text).toMatch(
      new RegExp(`invited ${memberEmail.replaceAll('.', '\\.')} as member; the invitation expires `),
    );
    expect(text).toMatch(/added Mia laptop \(/);
    // Filtered by kind.
    await owner.page.getByLabel('Kind').selectOption('device.suspended');
    await expect.poll(kinds).toEqual(['Device suspended']);
    await expect(seriousAxeViolations(owner.page)).resolves.toEqual([]);
    await screenshot(owner.page, 'real-business-activity');
    expect(owner.errors).toEqual([]);
    await owner.close();
    await member.close();
  }, 180_000);
});
