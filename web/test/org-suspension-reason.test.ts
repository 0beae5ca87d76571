import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import { FakeOrgApi } from './support/fake-org-api';
import { screenshot } from './support/real-stack';
import type { Site } from './support/site';

/**
 * Issue #26: an organization an operator suspended tells its members why, in the operator's words,
 * on the business Account page (against the fake of the organization routes), at 1280 and 390 px,
 * without sideways scrolling and with no serious axe violations. An organization suspended by its
 * plan (no reason) shows no such notice.
 */
let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

describe('an operator-suspended organization on its Account page', () => {
  for (const width of [1280, 390]) {
    it(`shows the operator's reason to a member at ${width} px`, async () => {
      const { context, page } = await openPage(browser, { width });
      const api = new FakeOrgApi('member');
      const acme = api.orgs[0]!;
      acme.is_active = false;
      acme.suspension_reason = 'Chargebacks on three cards.';
      await api.install(page);
      await page.goto(`${site.url}/app/business/account`);
      await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
      const notice = page.locator('.qw-alert', { hasText: 'Quietwire suspended this organization' });
      await notice.waitFor();
      await expect(notice.innerText()).resolves.toContain('Chargebacks on three cards.');
      await expect(notice.getByRole('link', { name: 'contact support' }).getAttribute('href')).resolves.toBe(
        '/support',
      );
      await expect(page.getByText('Suspended', { exact: true }).first().isVisible()).resolves.toBe(true);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'org-suspension-reason');
      await context.close();
    });
  }

  it('says nothing of an operator when the plan, not an operator, suspended it', async () => {
    const { context, page } = await openPage(browser, { width: 1280 });
    const api = new FakeOrgApi('member');
    api.orgs[0]!.is_active = false;
    await api.install(page);
    await page.goto(`${site.url}/app/business/account`);
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
    await page.getByText('Suspended', { exact: true }).first().waitFor();
    await expect(page.getByText('Quietwire suspended this organization').count()).resolves.toBe(0);
    await context.close();
  });
});
