import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { fillSubject, peersSampled } from '@qw/contracts';
import { createEnvelope } from '@qw/platform';
import { parseClientConfig, publicKeyFromPrivate } from '@qw/wireguard';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices, verifyEmail } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { alertTexts, launchBrowser, openPage } from './support/browser.ts';
import { photograph } from './support/photos';

let stack: Stack;
let browser: Browser;
let node: Awaited<ReturnType<Stack['connectNode']>>;
const password = 'correct horse battery';

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(`${stack.publicUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.publicUrl}/app/personal/overview`);
}

const row = (page: Page, name: string) => page.locator('tr', { has: page.locator(`input[value="${name}"]`) });

async function publicKeyOf(name: string): Promise<string | null> {
  const device = await stack.services
    .provisioning!.db.selectFrom('devices')
    .select('public_key')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return (device as { public_key: string | null }).public_key;
}

beforeAll(async () => {
  stack = await startStack({ label: 'webdevices', listen: true, extra: deviceServices });
  await registerTestNode(stack, 'eu-1');
  node = await stack.connectNode('eu-1');
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('personal devices in the browser', () => {
  it('adds, renames on blur, suspends, activates, requests a key and removes a device; the Overview follows', async () => {
    await customerWithPlan(stack, 'una@example.com');
    // A confirmed address: the new key's configuration is mailed, so the spec's alert is true.
    await verifyEmail(stack, 'una@example.com', password);
    const { context, page } = await openPage(browser);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
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
    // Issue #26: the status reads Active or Suspended (the spec's Active column said Yes or No).
    await expect.poll(() => row(page, 'Work laptop').innerText()).toMatch(/Linux\s+Active\s+Not connected/);

    await photograph(page, 'test-results/screenshots/personal-devices-1280.png', { fullPage: true });
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
    await expect.poll(() => row(page, 'Travel laptop').innerText()).toMatch(/Linux\s+Suspended/);
    await row(page, 'Travel laptop').getByRole('button', { name: 'Activate' }).click();
    await row(page, 'Travel laptop').getByRole('button', { name: 'Suspend' }).waitFor();

    // Request key asks first, in a modal that says the old configuration stops working; Cancel changes nothing.
    const keyBefore = await publicKeyOf('Travel laptop');
    await row(page, 'Travel laptop').getByRole('button', { name: 'Request key' }).click();
    const rekey = page.getByRole('dialog', { name: 'Request a new key for Travel laptop?' });
    await rekey.waitFor();
    await expect(rekey.innerText()).resolves.toContain('The old configuration stops working');
    await rekey.getByRole('button', { name: 'Cancel' }).click();
    await rekey.waitFor({ state: 'hidden' });
    await expect(publicKeyOf('Travel laptop')).resolves.toBe(keyBefore);
    // Esc closes it too, still changing nothing.
    await row(page, 'Travel laptop').getByRole('button', { name: 'Request key' }).click();
    await rekey.waitFor();
    await page.keyboard.press('Escape');
    await rekey.waitFor({ state: 'hidden' });
    await expect(publicKeyOf('Travel laptop')).resolves.toBe(keyBefore);
    // Confirmed: a new key, and the spec's alert in the page (role=alert), not the browser's alert().
    await row(page, 'Travel laptop').getByRole('button', { name: 'Request key' }).click();
    await rekey.getByRole('button', { name: 'Request key' }).click();
    await expect.poll(() => alertTexts(page)).toEqual(['Key request submitted. Check your email shortly.']);
    await rekey.waitFor({ state: 'hidden' });
    await expect.poll(() => publicKeyOf('Travel laptop')).not.toBe(keyBefore);

    // Config downloads the file from this page (issue #26: the new tab it used to open stayed empty).
    const download = page.waitForEvent('download');
    await row(page, 'Travel laptop').getByRole('link', { name: 'Config' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^travel-laptop\.conf$/);
    expect(context.pages()).toHaveLength(1);

    // The QR code view: the image loads from a one-minute link, with the platform's steps.
    await row(page, 'Travel laptop').getByRole('button', { name: 'QR code' }).click();
    const qr = page.getByRole('img', { name: /QR code of the WireGuard configuration/ });
    await qr.waitFor();
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);
    await expect(page.getByText('Copy the .conf file to /etc/wireguard/.').isVisible()).resolves.toBe(true);
    await photograph(page, 'test-results/screenshots/personal-device-qr-1280.png');
    await page.getByRole('button', { name: 'Close' }).click();

    // Online as soon as the node reports a fresh handshake, without reloading the page.
    const key = (
      (await stack.services.provisioning!.db.selectFrom('devices').select('public_key').execute()) as Array<{
        public_key: string;
      }>
    )[0]!.public_key;
    await page.goto(`${stack.publicUrl}/app/personal/overview`);
    await expect.poll(() => page.locator('.qw-stat-tile', { hasText: 'Devices' }).innerText()).toContain('1');
    const sample = createEnvelope(peersSampled, {
      sampledAt: new Date().toISOString(),
      peers: [
        {
          publicKey: key,
          latestHandshake: Math.floor(Date.now() / 1000),
          rxBytes: 1000,
          txBytes: 2000,
          maskedEndpoint: '203.0.113.0/24',
        },
      ],
    });
    await node.bus.js.publish(fillSubject(peersSampled.subject, { node: 'eu-1' }), JSON.stringify(sample));
    await expect
      .poll(() => page.locator('.qw-stat-tile', { hasText: 'VPN Status' }).innerText(), { timeout: 20_000 })
      .toContain('Online');
    await expect(page.locator('.qw-stat-tile', { hasText: 'Connected' }).innerText()).resolves.toContain('1');

    // Remove asks once (Cancel keeps the device), then the row is gone.
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    await row(page, 'Travel laptop').getByRole('button', { name: 'Remove' }).click();
    const removeDialog = page.getByRole('dialog', { name: 'Remove Travel laptop?' });
    await expect(removeDialog.innerText()).resolves.toContain('Its configuration stops working at once');
    await removeDialog.getByRole('button', { name: 'Cancel' }).click();
    await removeDialog.waitFor({ state: 'hidden' });
    await expect(row(page, 'Travel laptop').count()).resolves.toBe(1);
    await expect(publicKeyOf('Travel laptop')).resolves.not.toBeNull();
    await row(page, 'Travel laptop').getByRole('button', { name: 'Remove' }).click();
    await removeDialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No devices yet.').waitFor();
    expect(dialogs).toEqual([]);
    await context.close();
  }, 120_000);

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
    const stored = await stack.services
      .provisioning!.db.selectFrom('devices')
      .selectAll()
      .where('name', '=', 'Private phone')
      .executeTakeFirstOrThrow();
    expect(stored.private_key_sealed).toBeNull();
    expect(stored.client_keys).toBe(true);
    expect(publicKeyFromPrivate(config.privateKey)).toBe(stored.public_key);
    expect(config.addresses).toEqual([`${stored.ipv4}/32`, `${stored.ipv6}/128`]);
    // The toast says the truth: nothing is emailed for a key the server never had.
    await expect
      .poll(() => page.locator('.qw-toast').allInnerTexts())
      .toContain(
        'Private phone added. Its key was made in this browser: save the configuration shown now, it is not emailed.',
      );
    await page.getByRole('button', { name: 'I saved it' }).click();
    await expect.poll(() => row(page, 'Private phone').innerText()).toContain('Key in your browser');

    // A new key for it is made in the browser too: the modal says so, and the file is shown once again.
    const keyBefore = stored.public_key;
    await row(page, 'Private phone').getByRole('button', { name: 'Request key' }).click();
    const rekey = page.getByRole('dialog', { name: 'Request a new key for Private phone?' });
    await expect(rekey.innerText()).resolves.toContain('It is not emailed.');
    await rekey.getByRole('button', { name: 'Request key' }).click();
    await expect
      .poll(() => alertTexts(page))
      .toEqual(['New key made in this browser. Its configuration is shown once and is not emailed: save it now.']);
    const renewed = parseClientConfig(await page.getByLabel('Configuration file').innerText());
    const keyAfter = await publicKeyOf('Private phone');
    expect(keyAfter).not.toBe(keyBefore);
    expect(publicKeyFromPrivate(renewed.privateKey)).toBe(keyAfter);
    await page.getByRole('button', { name: 'I saved it' }).click();
    await context.close();
  }, 120_000);

  it('without a plan says why devices are inactive, links to Billing and keeps Add disabled (no red error)', async () => {
    const { context, page } = await openPage(browser);
    await fetch(`${stack.publicUrl}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'vera@example.com', password }),
    });
    await signIn(page, 'vera@example.com');
    await page.goto(`${stack.publicUrl}/app/personal/devices`);
    const notice = page.getByTestId('devices-plan-notice');
    await notice.waitFor();
    await expect(notice.innerText()).resolves.toContain(
      'You have no active plan, so your devices are inactive. Choose a plan in Billing to add and activate devices.',
    );
    await page.getByLabel('Name').fill('Phone');
    await expect(page.getByRole('button', { name: 'Add', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('device-add-blocked').innerText()).resolves.toBe(
      'Adding a device needs an active plan.',
    );
    await expect(page.locator('.devices-error').count()).resolves.toBe(0);
    await notice.getByRole('link', { name: 'Go to Billing' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/personal/billing`);
    await page.getByRole('heading', { name: 'Choose a plan' }).waitFor();
    await context.close();
  }, 120_000);
});
