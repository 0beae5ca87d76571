import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assigneeQuotaRefusalText, fillSubject, peersSampled } from '@qw/contracts';
import { createEnvelope } from '@qw/platform';
import { type Client, startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { customerWithPlan, deviceServices } from '../../services/gateway/test/support/products.ts';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { ownOrganization } from '../../services/gateway/test/support/organizations.ts';
import { eventually } from '@qw/testkit';
import { seriousAxeViolations } from './support/axe.ts';
import { launchBrowser, openPage } from './support/browser.ts';
import { screenshot, signInThroughPage } from './support/real-stack.ts';

/**
 * Issue #26, Devices, in Chromium on the real services at 1280 and 390 px: each device shows when
 * it was added, its last handshake ("2 min ago"), tunnel addresses, server, the last 24 hours'
 * traffic (from a node's real sample through telemetry) and its public key with a Copy that says
 * "Copied"; a suspended device reads "Suspended" and offers no Config or QR code; Config downloads
 * the file and leaves no tab; at 1280 px the table fits (names whole, actions on two lines at most,
 * Remove apart from Suspend/Activate, toasts clear of the Actions column); at the per-person limit
 * the server's words stand by the Add button. Photos in test-results/screenshots/devices-*.png.
 */
let stack: Stack;
let browser: Browser;
let node: Awaited<ReturnType<Stack['connectNode']>>;
let dana: Client;
let lead: Client;
let orgId: string;
const password = 'correct horse battery';
const mib = 1024 * 1024;

type DeviceJson = { id: string; name: string; public_key: string; addresses: string[]; created_at: string };

/** A device's row and the details line under it: one <tbody>. */
const device = (page: Page, name: string) => page.locator('tbody', { has: page.locator(`input[value="${name}"]`) });

async function added(client: Client, url: string, body: Record<string, unknown>): Promise<DeviceJson> {
  const response = await client.call('POST', url, body);
  if (response.statusCode !== 201) throw new Error(`add: ${response.statusCode} ${JSON.stringify(response.data)}`);
  return response.data.device;
}

/** The rows' boxes the layout claims are about, measured in the page. */
function layoutOf(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element) => el.getBoundingClientRect();
    const wrap = document.querySelector('.devices-table')?.closest('.qw-table-wrap');
    return {
      tableOverflows: wrap ? wrap.scrollWidth > wrap.clientWidth : true,
      pageOverflows: document.documentElement.scrollWidth > window.innerWidth,
      namesCut: [...document.querySelectorAll<HTMLInputElement>('.devices-name__input')]
        .filter((input) => input.scrollWidth > input.clientWidth)
        .map((input) => input.value),
      actionLines: [...document.querySelectorAll('.devices-actions')].map(
        (actions) => new Set([...actions.querySelectorAll('a, button')].map((b) => Math.round(box(b).top))).size,
      ),
      removeGaps: [...document.querySelectorAll('.devices-actions')].map((actions) => {
        const remove = [...actions.querySelectorAll('button')].find((b) => b.textContent === 'Remove');
        const toggle = [...actions.querySelectorAll('button')].find((b) =>
          /^(Suspend|Activate)$/.test(b.textContent ?? ''),
        );
        return remove && toggle ? box(remove).left - box(toggle).right : null;
      }),
      /** Each Actions cell's width against its device's card (or row). */
      actionsShare: [...document.querySelectorAll('.devices-actions')].map(
        (actions) => box(actions).width / box(actions.closest('tbody')!).width,
      ),
      actionsColumnLeft: Math.min(...[...document.querySelectorAll('.devices-actions-cell')].map((c) => box(c).left)),
    };
  });
}

beforeAll(async () => {
  stack = await startStack({ label: 'webdevdetails', listen: true, extra: deviceServices });
  await registerTestNode(stack, 'eu-1');
  node = await stack.connectNode('eu-1');
  dana = await customerWithPlan(stack, 'dana@example.com', 'personal', password);
  lead = await customerWithPlan(stack, 'lead@example.com', 'business10', password);
  orgId = await ownOrganization(lead);
  // Provisioning knows the owner once it answers their organization's device list.
  await eventually(async () => (await lead.call('GET', `/api/orgs/${orgId}/devices`)).statusCode === 200, 20_000);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('a WireGuard user’s devices page', () => {
  it('shows each device’s facts, copies its key, offers no config while suspended, downloads Config without a tab', async () => {
    const macbook = await added(dana, '/api/devices', { name: 'Dana MacBook Pro', platform: 'macos' });
    const phone = await added(dana, '/api/devices', { name: 'Dana iPhone', platform: 'ios' });
    expect((await dana.call('PATCH', `/api/devices/${phone.id}`, { is_active: false })).statusCode).toBe(200);
    // The node saw the MacBook's handshake 130 s ago; it received 3 MiB from it and sent it 12 MiB.
    const sample = createEnvelope(peersSampled, {
      sampledAt: new Date().toISOString(),
      peers: [
        {
          publicKey: macbook.public_key,
          latestHandshake: Math.floor(Date.now() / 1000) - 130,
          rxBytes: 3 * mib,
          txBytes: 12 * mib,
          maskedEndpoint: '203.0.113.0/24',
        },
      ],
    });
    await node.bus.js.publish(fillSubject(peersSampled.subject, { node: 'eu-1' }), JSON.stringify(sample));

    for (const width of [1280, 390]) {
      const { context, page } = await openPage(browser, { width });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.publicUrl });
      await signInThroughPage(page, stack.publicUrl, 'dana@example.com', password);
      await page.goto(`${stack.publicUrl}/app/personal/devices`);
      const mac = device(page, 'Dana MacBook Pro');
      await mac.waitFor();
      const details = mac.getByTestId('device-details');
      await expect
        .poll(() => details.getByTestId('device-traffic').innerText(), { timeout: 20_000 })
        .toBe('↓ 12.0 MB received · ↑ 3.0 MB sent');
      const text = await details.innerText();
      expect(text).toContain(`Created\n${macbook.created_at.slice(0, 10)}`);
      expect(text).toMatch(/Last handshake\n2 min ago/);
      expect(text).toContain('Server\neu-1, Europe');
      for (const address of macbook.addresses) expect(text).toContain(address);
      expect(text).toContain(`${macbook.public_key.slice(0, 8)}…${macbook.public_key.slice(-4)}`);
      await expect.poll(() => mac.locator('tr').first().innerText()).toMatch(/Active\s+Connected/);

      // Copy puts the whole key on the clipboard and says so on the button.
      await details.getByRole('button', { name: 'Copy public key of Dana MacBook Pro' }).click();
      await details.getByRole('button', { name: 'Copied' }).waitFor();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(macbook.public_key);

      // A suspended device reads "Suspended" and has no Config or QR code; it can be activated.
      const iphone = device(page, 'Dana iPhone');
      await expect(iphone.locator('tr').first().innerText()).resolves.toMatch(/Suspended\s+Not connected/);
      await expect(iphone.getByRole('link', { name: 'Config' }).count()).resolves.toBe(0);
      await expect(iphone.getByRole('button', { name: 'QR code' }).count()).resolves.toBe(0);
      await iphone.getByRole('button', { name: 'Activate' }).waitFor();
      await expect(iphone.innerText()).resolves.toContain('Last handshake\nNever');

      const layout = await layoutOf(page);
      expect(layout.pageOverflows).toBe(false);
      expect(layout.namesCut).toEqual([]);
      if (width === 1280) {
        expect(layout.tableOverflows).toBe(false);
        expect(layout.actionLines.every((lines) => lines <= 2)).toBe(true);
        expect(layout.removeGaps.every((gap) => gap !== null && gap >= 24)).toBe(true);
      } else {
        // A card: the buttons use the card's width (not a squeezed column), in three lines at most.
        expect(layout.actionsShare.every((share) => share > 0.8)).toBe(true);
        expect(layout.actionLines.every((lines) => lines <= 3)).toBe(true);
      }
      await screenshot(page, 'devices-details');
      expect(await seriousAxeViolations(page)).toEqual([]);

      if (width === 1280) {
        // Config saves the file from this page: a download, and no other tab left open.
        const download = page.waitForEvent('download');
        await mac.getByRole('link', { name: 'Config' }).click();
        // The file is named as wg-quick names the interface: at most 15 characters.
        expect((await download).suggestedFilename()).toBe('dana-macbook-pr.conf');
        expect(context.pages()).toHaveLength(1);

        // A toast (after adding a device) stays clear of the Actions column.
        await page.getByLabel('Name', { exact: true }).fill('Dana iPad');
        await page.getByRole('button', { name: 'Add', exact: true }).click();
        const toast = page.locator('.qw-toast');
        await toast.waitFor();
        await device(page, 'Dana iPad').waitFor();
        const toastBox = await toast.boundingBox();
        const { actionsColumnLeft } = await layoutOf(page);
        expect(toastBox!.x + toastBox!.width).toBeLessThan(actionsColumnLeft);
        await screenshot(page, 'devices-toast');
      }
      await context.close();
    }
  }, 120_000);

  it('at the per-person limit says the server’s words by Add, and the picker’s count is whole', async () => {
    for (const name of ['Dana MacBook F', 'Reception desk', 'Build server', 'Meeting room', 'Lab laptop']) {
      await added(lead, `/api/orgs/${orgId}/devices`, { name });
    }
    const limit = assigneeQuotaRefusalText(5, true);
    const sixth = await lead.call('POST', `/api/orgs/${orgId}/devices`, { name: 'One too many' });
    expect(sixth.data.error.message).toBe(limit);

    for (const width of [1280, 390]) {
      const { context, page } = await openPage(browser, { width });
      await signInThroughPage(page, stack.publicUrl, 'lead@example.com', password);
      await page.goto(`${stack.publicUrl}/app/business/devices`);
      await device(page, 'Dana MacBook F').waitFor();
      const notice = page.getByTestId('device-limit');
      await expect.poll(() => notice.innerText()).toBe(limit);
      const add = page.getByRole('button', { name: 'Add', exact: true });
      await page.getByLabel('Name', { exact: true }).fill('One too many');
      await expect(add.isDisabled()).resolves.toBe(true);
      await expect(add.getAttribute('aria-describedby')).resolves.toBe('org-device-limit');
      // The notice sits by the form: between the Add button and the table.
      const [addBox, noticeBox, tableBox] = await Promise.all([
        add.boundingBox(),
        notice.boundingBox(),
        page.locator('.devices-table').boundingBox(),
      ]);
      expect(noticeBox!.y).toBeGreaterThanOrEqual(addBox!.y);
      expect(noticeBox!.y).toBeLessThan(tableBox!.y);

      // The assignee picker shows its choice whole, count included ("… — 5/5").
      const picker = page.getByLabel('Assignee');
      await expect.poll(() => picker.locator('option').first().innerText()).toMatch(/ — 5\/5$/);
      const fits = await picker.evaluate((select: HTMLSelectElement) => {
        const style = getComputedStyle(select);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const text = context.measureText(select.selectedOptions[0]!.text).width;
        const room = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
        return { text: Math.ceil(text), room };
      });
      if (width === 1280) expect(fits.text).toBeLessThanOrEqual(fits.room);

      const layout = await layoutOf(page);
      expect(layout.pageOverflows).toBe(false);
      expect(layout.namesCut).toEqual([]);
      if (width === 1280) {
        expect(layout.tableOverflows).toBe(false);
        expect(layout.actionLines.every((lines) => lines <= 2)).toBe(true);
      }
      await screenshot(page, 'devices-business-limit');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await context.close();
    }
  }, 120_000);
});
