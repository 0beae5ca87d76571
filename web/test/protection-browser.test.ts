import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tunnelCheckUrl } from '@qw/contracts';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { FakeFleetApi } from './support/fake-fleet-api';
import { FakeOrgApi } from './support/fake-org-api';
import { screenshot } from './support/real-stack';
import type { Site } from './support/site';

/**
 * Issue #25 in Chromium at 1280 and 390 px against the fake device routes: the Overview's "Am I
 * protected?" with the node's and the gateway's answers stubbed (the real answers are proven
 * through a real tunnel in services/gateway/test/tunnel-privacy.test.ts), and the setup dialog's leak protection with the
 * Linux kill-switch option. Photos in test-results/screenshots/protection-*.png.
 */
let site: Site;
let browser: Browser;
siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

/**
 * `through`: the node answers with the laptop's key (and the gateway sees its server); `gateway`:
 * only the gateway's check sees a server (as on the HTTPS site, where the node is not asked);
 * `none`: no tunnel, the gateway sees an address of no server.
 */
async function open(width: number, check: 'through' | 'gateway' | 'none') {
  const api = new FakeFleetApi();
  const laptop = api.add('Ada laptop', 'europe', { platform: 'linux' });
  const { context, page } = await openPage(browser, { width, colorScheme: width < 600 ? 'dark' : 'light' });
  await api.install(page);
  await page.route('**/api/connection-check', (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      headers: { 'cache-control': 'no-store' },
      body: JSON.stringify(
        check === 'none'
          ? { protected: false, server: null, resolvers: [] }
          : {
              protected: true,
              server: { name: 'eu-1', city: 'Frankfurt', region: 'europe' },
              resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'],
            },
      ),
    }),
  );
  await page.route(tunnelCheckUrl, (route) =>
    check !== 'through'
      ? route.abort('addressunreachable')
      : route.fulfill({
          status: 200,
          contentType: 'application/json',
          headers: { 'access-control-allow-origin': site.url },
          body: JSON.stringify({
            through_tunnel: true,
            public_key: laptop.public_key,
            node: 'eu-1',
            resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'],
          }),
        }),
  );
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    page,
    errors,
    close: async () => {
      await context.close();
      await api.close();
    },
  };
}

describe('"Am I protected?" and leak protection (fake API)', () => {
  for (const width of [1280, 390]) {
    it(`the Overview says which device this browser is on, or that it is not protected, ${width} px`, async () => {
      const through = await open(width, 'through');
      await through.page.goto(`${site.url}/app/personal/overview`);
      const section = through.page.getByRole('region', { name: 'Am I protected?' });
      await expect
        .poll(() => section.innerText())
        .toContain('Protected: this browser is on Ada laptop, via Frankfurt, Europe.');
      await expect(section.innerText()).resolves.toContain('10.64.0.1');
      await screenshot(through.page, `protection-protected-${width}`);
      expect(await seriousAxeViolations(through.page)).toEqual([]);
      expect(through.errors).toEqual([]);
      await through.close();

      const none = await open(width, 'none');
      await none.page.goto(`${site.url}/app/personal/overview`);
      const alone = none.page.getByRole('region', { name: 'Am I protected?' });
      await expect
        .poll(() => alone.innerText())
        .toContain('Not protected: this browser does not reach the internet through a Quietwire tunnel.');
      await expect(alone.innerText()).resolves.toContain('Turn the tunnel on in the WireGuard app on this device.');
      const overflow = await none.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(none.page, `protection-not-protected-${width}`);
      expect(await seriousAxeViolations(none.page)).toEqual([]);
      await none.close();
    });

    it(`with only the gateway's check (the HTTPS way) it names the server and claims no device, ${width} px`, async () => {
      const { page, close, errors } = await open(width, 'gateway');
      await page.goto(`${site.url}/app/personal/overview`);
      const section = page.getByRole('region', { name: 'Am I protected?' });
      await expect
        .poll(() => section.innerText())
        .toContain('Protected: this browser reaches the internet through Quietwire, via Frankfurt, Europe.');
      const text = await section.innerText();
      expect(text).not.toContain('Ada laptop');
      expect(text).toContain('This check sees the server, not which of your devices this is.');
      await expect(
        section.getByRole('link', { name: "open the tunnel's own check in a new tab" }).getAttribute('href'),
      ).resolves.toBe(tunnelCheckUrl);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, `protection-gateway-${width}`);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    });

    it(`the business Overview says the same from the gateway's check, ${width} px`, async () => {
      const { context, page } = await openPage(browser, { width, colorScheme: width < 600 ? 'dark' : 'light' });
      await new FakeOrgApi('owner').install(page);
      await page.route('**/api/connection-check', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({
            protected: true,
            server: { name: 'eu-1', city: 'Frankfurt', region: 'europe' },
            resolvers: ['10.64.0.1', 'fd7a:5157:7769::1'],
          }),
        }),
      );
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${site.url}/app/business/overview`);
      const section = page.getByRole('region', { name: 'Am I protected?' });
      await expect
        .poll(() => section.innerText())
        .toContain('Protected: this browser reaches the internet through Quietwire, via Frankfurt, Europe.');
      await expect(section.innerText()).resolves.toContain('This check sees the server, not which of your devices');
      await screenshot(page, `protection-business-gateway-${width}`);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`the setup dialog says how to block traffic outside the tunnel; Linux adds the kill switch to the file, ${width} px`, async () => {
      const { page, close, errors } = await open(width, 'none');
      await page.goto(`${site.url}/app/personal/devices`);
      await page.getByRole('button', { name: 'QR code' }).first().click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.innerText()).toContain('Block traffic outside the tunnel');
      await expect(dialog.innerText()).resolves.toContain('wg-quick');
      await expect(dialog.innerText()).resolves.toContain('X25519MLKEM768');
      const download = dialog.getByRole('link', { name: 'Download .conf' });
      await expect.poll(() => download.getAttribute('href')).not.toContain('kill_switch');
      await dialog.getByRole('checkbox', { name: 'Block traffic outside the tunnel' }).check();
      await expect.poll(() => download.getAttribute('href')).toContain('kill_switch=true');
      await screenshot(page, `protection-setup-linux-${width}`);
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await close();
    });
  }
});
