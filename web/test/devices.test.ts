import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { peersSampled, registerNodeRpc } from '@qw/contracts';
import { RpcClient, createEnvelope } from '@qw/platform';
import { generateKeyPair, parseClientConfig, publicKeyFromPrivate } from '@qw/wireguard';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../../services/gateway/test/support/products.ts';
import { launchBrowser, openPage } from './support/browser.ts';

let stack: Stack;
let browser: Browser;
let nodeId: string;
const password = 'correct horse battery';

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${stack.publicUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.publicUrl}/app/personal/overview`);
}

const row = (page: Page, name: string) => page.locator('tr', { has: page.locator(`input[value="${name}"]`) });

beforeAll(async () => {
  stack = await startStack({ label: 'webdevices', listen: true, extra: deviceServices });
  const node = await new RpcClient(stack.bus).request(registerNodeRpc, {
    name: 'eu-1', region: 'eu-central', endpoint: '198.51.100.1:51820', public_key: generateKeyPair().publicKey, ip: '198.51.100.1', tags: [],
  });
  nodeId = node.node_id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('personal devices in the browser', () => {
  it('adds, renames on blur, suspends, activates, requests a key and removes a device; the Overview follows', async () => {
    await customerWithPlan(stack, 'una@example.com');
    const { context, page } = await openPage(browser);
    await signIn(page, 'una@example.com');
    await expect.poll(() => page.locator('.qw-stat-tile', { hasText: 'Devices' }).innerText()).toMatch(/0$/);
    await expect.poll(() => page.locator('.qw-stat-tile', { hasText: 'VPN Status' }).innerText()).toContain('Idle');

    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    const add = page.getByRole('button', { name: 'Add', exact: true });
    await expect(add.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Name').fill('Work laptop');
    await page.getByLabel('Platform').selectOption('linux');
    await add.click();
    await row(page, 'Work laptop').waitFor();
    await expect.poll(() => row(page, 'Work laptop').innerText()).toMatch(/Linux\s+Yes\s+Not connected/);

    await page.screenshot({ path: 'test-results/screenshots/personal-devices-1280.png', fullPage: true });
    // Rename in place: saved on blur after trimming; an empty name is ignored.
    const name = page.getByLabel('Name of Work laptop');
    await name.fill('  Travel laptop ');
    await name.blur();
    await row(page, 'Travel laptop').waitFor();
    await page.getByLabel('Name of Travel laptop').fill('   ');
    await page.getByLabel('Name of Travel laptop').blur();
    await expect(page.getByLabel('Name of Travel laptop').inputValue()).resolves.toBe('Travel laptop');

    await row(page, 'Travel laptop').getByRole('button', { name: 'Suspend' }).click();
    await row(page, 'Travel laptop').getByRole('button', { name: 'Activate' }).waitFor();
    await expect.poll(() => row(page, 'Travel laptop').innerText()).toMatch(/Linux\s+No/);
    await row(page, 'Travel laptop').getByRole('button', { name: 'Activate' }).click();
    await row(page, 'Travel laptop').getByRole('button', { name: 'Suspend' }).waitFor();

    const dialog = page.waitForEvent('dialog');
    await row(page, 'Travel laptop').getByRole('button', { name: 'Request key' }).click();
    const alert = await dialog;
    expect(alert.message()).toBe('Key request submitted. Check your email shortly.');
    await alert.accept();

    // Config opens the file in a new tab.
    const tab = context.waitForEvent('page');
    await row(page, 'Travel laptop').getByRole('link', { name: 'Config' }).click();
    const opened = await tab;
    const download = opened.waitForEvent('download').catch(() => undefined);
    const file = await download;
    if (file) expect(file.suggestedFilename()).toMatch(/^travel-laptop\.conf$/);
    else expect(await opened.content()).toContain('[Interface]');
    await opened.close().catch(() => undefined);

    // The QR code view: the image loads from a one-minute link, with the platform's steps.
    await row(page, 'Travel laptop').getByRole('button', { name: 'QR code' }).click();
    const qr = page.getByRole('img', { name: /QR code of the WireGuard configuration/ });
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);
    await expect(page.getByText('Copy the .conf file to /etc/wireguard/.').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: 'test-results/screenshots/personal-device-qr-1280.png' });
    await page.getByRole('button', { name: 'Close' }).click();

    // Online as soon as the node reports a fresh handshake, without reloading the page.
    const key = ((await stack.services.provisioning!.db.selectFrom('devices').select('public_key').execute()) as Array<{ public_key: string }>)[0]!.public_key;
    await page.goto(`${stack.publicUrl}/app/personal/overview`);
    await expect.poll(() => page.locator('.qw-stat-tile', { hasText: 'Devices' }).innerText()).toContain('1');
    const sample = createEnvelope(peersSampled, { nodeId, sampledAt: new Date().toISOString(), peers: [{ publicKey: key, latestHandshake: Math.floor(Date.now() / 1000), rxBytes: 1000, txBytes: 2000, maskedEndpoint: '203.0.113.0/24' }] });
    await stack.bus.js.publish(stack.bus.ns.subject(peersSampled.subject), JSON.stringify(sample));
    await expect.poll(() => page.locator('.qw-stat-tile', { hasText: 'VPN Status' }).innerText(), { timeout: 20_000 }).toContain('Online');
    await expect(page.locator('.qw-stat-tile', { hasText: 'Connected' }).innerText()).resolves.toContain('1');

    // Remove asks once, then the row is gone.
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    await row(page, 'Travel laptop').getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No devices yet.').waitFor();
    await context.close();
  }, 90_000);

  it('makes the private key in the browser: the server keeps only the public key and the page shows the file once', async () => {
    await customerWithPlan(stack, 'wen@example.com');
    const { context, page } = await openPage(browser);
    await signIn(page, 'wen@example.com');
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    await page.getByLabel('Name').fill('Private phone');
    await page.getByLabel(/Make the private key in this browser/).check();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const file = page.getByLabel('Configuration file');
    await file.waitFor();
    const config = parseClientConfig(await file.innerText());
    const stored = await stack.services.provisioning!.db.selectFrom('devices').selectAll().where('name', '=', 'Private phone').executeTakeFirstOrThrow();
    expect(stored.private_key_sealed).toBeNull();
    expect(stored.client_keys).toBe(true);
    expect(publicKeyFromPrivate(config.privateKey)).toBe(stored.public_key);
    expect(config.addresses).toEqual([`${stored.ipv4}/32`, `${stored.ipv6}/128`]);
    await page.getByRole('button', { name: 'I saved it' }).click();
    await expect.poll(() => row(page, 'Private phone').innerText()).toContain('Key in your browser');
    await context.close();
  }, 60_000);

  it('shows the server’s refusal under the add form in red when there is no plan', async () => {
    const { context, page } = await openPage(browser);
    await fetch(`${stack.publicUrl}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'vera@example.com', password }) });
    await signIn(page, 'vera@example.com');
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    await page.getByLabel('Name').fill('Phone');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const error = page.locator('.devices-error');
    await error.waitFor();
    await expect(error.innerText()).resolves.toBe('Devices come with an active Personal or Gaming plan. Choose a plan on the pricing page to add devices.');
    await context.close();
  }, 60_000);
});
