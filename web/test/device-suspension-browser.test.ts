import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, confirmEmail, startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import {
  joinOrganization,
  organizationEventsHandled,
  ownOrganization,
} from '../../services/gateway/test/support/organizations.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { signInThroughPage } from './support/real-stack.ts';
import { photograph } from './support/photos';

/**
 * Issue #20 in Chromium on the real services: a device an operator or an organization's admin
 * suspended says so in its row, in the customer's words, and its person's Activate is disabled
 * with that reason (title and aria-describedby); an owner still activates what the organization
 * suspended. Photographed at 1280 and 390 px into /work/shots (A-*.png).
 */
let stack: Stack;
let browser: Browser;
const password = 'correct horse battery';
const shots = process.env.QW_SHOTS_DIR ?? '/work/shots';
let paul: Client;
let owner: Client;
let member: Client;
let ops: Client;
let orgId: string;

const row = (page: Page, name: string) => page.locator('tr', { has: page.locator(`input[value="${name}"]`) });

const signIn = (page: Page, email: string) => signInThroughPage(page, stack.publicUrl, email, password);

async function added(client: Client, url: string, body: Record<string, unknown>): Promise<string> {
  const response = await client.call('POST', url, body);
  if (response.statusCode !== 201) throw new Error(`add: ${response.statusCode} ${response.body}`);
  return response.data.device.id;
}

/** What the Activate button of a row says about itself, and the text its description points to. */
async function activateOf(page: Page, name: string) {
  const button = row(page, name).getByRole('button', { name: 'Activate' });
  await button.waitFor();
  const describedBy = await button.getAttribute('aria-describedby');
  return {
    disabled: await button.isDisabled(),
    title: await button.getAttribute('title'),
    description: describedBy ? await page.locator(`[id="${describedBy}"]`).innerText() : null,
  };
}

beforeAll(async () => {
  stack = await startStack({
    label: 'websuspension',
    listen: true,
    adminEmails: ['ops@quietwire.test'],
    extra: deviceServices,
  });
  await registerTestNode(stack, 'eu-1');
  paul = await customerWithPlan(stack, 'paul@example.com', 'personal', password);
  owner = await customerWithPlan(stack, 'owen@example.com', 'business10', password);
  await confirmEmail(stack, 'owen@example.com', password, owner);
  member = new Client(stack.app, '198.51.100.31');
  await member.call('POST', '/api/auth/signup', { email: 'max@example.com', password });
  member = await confirmEmail(stack, 'max@example.com', password, member);
  ops = new Client(stack.app, '198.51.100.32');
  await ops.call('POST', '/api/auth/signup', { email: 'ops@quietwire.test', password });
  ops = await confirmEmail(stack, 'ops@quietwire.test', password, ops);
  orgId = await ownOrganization(owner);
  await joinOrganization(stack, orgId, owner, { client: member, email: 'max@example.com' });
  await organizationEventsHandled(stack);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('who suspended a device, on its row', () => {
  it('an operator’s suspension: "Suspended by Quietwire support: contact support", Activate disabled with it', async () => {
    const held = await added(paul, '/api/devices', { name: 'Held laptop', platform: 'linux' });
    await added(paul, '/api/devices', { name: 'Own phone', platform: 'ios' });
    expect((await ops.call('POST', '/api/admin-device', { action: 'suspend', deviceId: held })).statusCode).toBe(200);
    const phone = (await paul.call('GET', '/api/devices')).data.devices.find(
      (d: { name: string }) => d.name === 'Own phone',
    );
    expect((await paul.call('PATCH', `/api/devices/${phone.id}`, { is_active: false })).statusCode).toBe(200);

    for (const width of [1280, 390]) {
      const { context, page } = await openPage(browser, { width });
      await signIn(page, 'paul@example.com');
      await page.goto(`${stack.publicUrl}/app/personal/devices`);
      await row(page, 'Held laptop').waitFor();
      await expect
        .poll(() => row(page, 'Held laptop').getByTestId('suspension-note').allInnerTexts(), { timeout: 10_000 })
        .toEqual(['Suspended by Quietwire support: contact support']);
      expect(await activateOf(page, 'Held laptop')).toEqual({
        disabled: true,
        title: 'Suspended by Quietwire support: contact support',
        description: 'Suspended by Quietwire support: contact support',
      });
      // Its person's own suspension: the row as before, and Activate works.
      await expect(row(page, 'Own phone').getByTestId('suspension-note').count()).resolves.toBe(0);
      expect(await activateOf(page, 'Own phone')).toEqual({ disabled: false, title: null, description: null });
      await photograph(page, `${shots}/A-personal-operator-${width}.png`, { fullPage: true });
      await context.close();
    }
  }, 60_000);

  it('the organization admin’s suspension: the member sees why and cannot activate; the owner can', async () => {
    const maxDevice = await added(owner, `/api/orgs/${orgId}/devices`, {
      name: 'Max desktop',
      assignee_id: (await member.call('GET', '/api/me')).data.user.id,
    });
    expect((await owner.call('PATCH', `/api/devices/${maxDevice}`, { is_active: false })).statusCode).toBe(200);

    for (const width of [1280, 390]) {
      const { context, page } = await openPage(browser, { width });
      await signIn(page, 'max@example.com');
      await page.goto(`${stack.publicUrl}/app/business/devices`);
      await row(page, 'Max desktop').waitFor();
      await expect
        .poll(() => row(page, 'Max desktop').getByTestId('suspension-note').allInnerTexts(), { timeout: 10_000 })
        .toEqual(["Suspended by your organization's admin"]);
      expect(await activateOf(page, 'Max desktop')).toEqual({
        disabled: true,
        title: "Suspended by your organization's admin",
        description: "Suspended by your organization's admin",
      });
      await photograph(page, `${shots}/A-business-member-${width}.png`, { fullPage: true });
      await context.close();
    }

    const { context, page } = await openPage(browser, { width: 1280 });
    await signIn(page, 'owen@example.com');
    await page.goto(`${stack.publicUrl}/app/business/devices`);
    await row(page, 'Max desktop').waitFor();
    await expect
      .poll(() => row(page, 'Max desktop').getByTestId('suspension-note').allInnerTexts(), { timeout: 10_000 })
      .toEqual(["Suspended by your organization's admin"]);
    expect((await activateOf(page, 'Max desktop')).disabled).toBe(false);
    await photograph(page, `${shots}/A-business-owner-1280.png`, { fullPage: true });
    await row(page, 'Max desktop').getByRole('button', { name: 'Activate' }).click();
    await row(page, 'Max desktop').getByRole('button', { name: 'Suspend' }).waitFor();
    await context.close();
  }, 60_000);
});
