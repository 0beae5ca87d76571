import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { advanceProvisioningClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { launchBrowser, openPage } from './support/browser.ts';

let stack: Stack;
let browser: Browser;
const password = 'correct horse battery';

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${stack.publicUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.publicUrl}/app/personal/overview`);
}

/** A device's row and, under it, its details, where the key rotation is (issue #26): one <tbody>. */
const row = (page: Page, name: string) => page.locator('tbody', { has: page.locator(`input[value="${name}"]`) });

beforeAll(async () => {
  stack = await startStack({ label: 'webrotation', listen: true, extra: deviceServices });
  await registerTestNode(stack, 'eu-1');
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('scheduled key rotation on the Devices page', () => {
  it('sets every 90 days in the row, shows the next rotation, and after one until when the previous key works', async () => {
    const client = await customerWithPlan(stack, 'rolf@example.com');
    const created = await client.call('POST', '/api/devices', { name: 'Desk PC', platform: 'windows' });
    expect(created.statusCode).toBe(201);
    const { context, page } = await openPage(browser);
    await signIn(page, 'rolf@example.com');
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    const rotation = page.getByLabel('Key rotation for Desk PC');
    await rotation.waitFor();
    await expect(rotation.inputValue()).resolves.toBe('off');
    await expect(row(page, 'Desk PC').innerText()).resolves.not.toContain('Next:');

    await rotation.selectOption({ label: 'Every 90 days' });
    await expect.poll(() => row(page, 'Desk PC').innerText()).toContain('Next:');
    const stored = (await client.call('GET', '/api/devices')).data.devices[0];
    expect(stored.key_rotation_days).toBe(90);
    await page.reload();
    await expect(page.getByLabel('Key rotation for Desk PC').inputValue()).resolves.toBe('90');

    await new RpcClient(await stack.connectAdmin()).request(advanceProvisioningClockRpc, { hours: 90 * 24 + 1 });
    await page.reload();
    await expect.poll(() => row(page, 'Desk PC').innerText()).toContain('Previous key works until');
    const rotated = (await client.call('GET', '/api/devices')).data.devices[0];
    expect(rotated.public_key).not.toBe(stored.public_key);

    await page.getByLabel('Key rotation for Desk PC').selectOption({ label: 'Off' });
    await expect.poll(() => row(page, 'Desk PC').innerText()).not.toContain('Next:');
    expect((await client.call('GET', '/api/devices')).data.devices[0].key_rotation_days).toBe(null);
    await context.close();
  }, 90_000);
});
