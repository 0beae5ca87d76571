import type { Browser, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { alertTexts, openPage, siteAndBrowserPerFile } from './support/browser';
import type { Site } from './support/site';

const checkoutFailedAlert = 'We couldn’t start checkout. Please try again in a moment.';

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

type Answer = { status: number; body: string; contentType?: string };

/**
 * Opens /pricing with POST /api/checkout answered by the test (failure injection at the browser
 * boundary). Each answer is held until `release()` so the busy state can be observed.
 */
async function pricingWithCheckoutAnswer(answer: Answer) {
  const { context, page } = await openPage(browser);
  const requests: unknown[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/checkout', async (route: Route) => {
    requests.push(route.request().postDataJSON());
    await released;
    await route.fulfill({
      status: answer.status,
      body: answer.body,
      contentType: answer.contentType ?? 'application/json',
    });
  });
  await page.goto(`${site.url}/pricing`);
  await page.locator('h1').waitFor();
  return { context, page, requests, release };
}

describe('pricing button', () => {
  it("reads 'Redirecting…' and is disabled while checkout runs; a 500 alerts and the button recovers", async () => {
    const { context, page, requests, release } = await pricingWithCheckoutAnswer({
      status: 500,
      body: '{"error":{"code":"internal","message":"Internal error"}}',
    });
    const card = page.locator('article[data-plan="gaming"]');
    await card.getByRole('button', { name: 'Get Gaming' }).click();

    const busy = card.locator('button.qw-button');
    await expect.poll(() => busy.innerText()).toBe('Redirecting…');
    await expect(busy.isDisabled()).resolves.toBe(true);
    // Only the clicked card is busy.
    await expect(page.getByRole('button', { name: 'Get Personal' }).isEnabled()).resolves.toBe(true);

    release();
    // In the page, under the card's button (role=alert), not the browser's alert().
    await expect.poll(() => card.getByRole('alert').allInnerTexts()).toEqual([checkoutFailedAlert]);
    await expect.poll(() => busy.innerText()).toBe('Get Gaming');
    await expect(busy.isEnabled()).resolves.toBe(true);

    expect(requests).toEqual([{ plan_code: 'gaming', plan_name: 'Gaming', account_type: 'personal', quantity: 1 }]);
    await context.close();
  }, 120_000);

  it("alerts when the answer has no 'url', and sends account_type 'business' for business plans", async () => {
    const { context, page, requests, release } = await pricingWithCheckoutAnswer({
      status: 200,
      body: '{"id":"cs_test_1"}',
    });
    release();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.getByRole('button', { name: 'Get Business 250+' }).click();
    await expect.poll(() => alertTexts(page)).toEqual([checkoutFailedAlert]);
    await expect
      .poll(() => page.locator('article[data-plan="business250"] button.qw-button').innerText())
      .toBe('Get Business 250+');
    await expect.poll(() => errors.join('\n')).toContain("Missing 'url' in API response");
    expect(requests).toEqual([
      { plan_code: 'business250', plan_name: 'Business 250+', account_type: 'business', quantity: 1 },
    ]);
    await context.close();
  }, 120_000);

  it("logs 'Checkout failed: {status} {body}' for a non-OK answer", async () => {
    const { context, page, release } = await pricingWithCheckoutAnswer({
      status: 502,
      body: 'upstream down',
      contentType: 'text/plain',
    });
    release();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.getByRole('button', { name: 'Get Personal' }).click();
    await expect.poll(() => alertTexts(page)).toEqual([checkoutFailedAlert]);
    await expect.poll(() => errors.join('\n')).toContain('Checkout failed: 502 upstream down');
    await context.close();
  }, 120_000);

  it('sends the browser to the returned url on success', async () => {
    const target = `${site.url}/post-checkout?session_id=cs_test_2`;
    const { context, page, release } = await pricingWithCheckoutAnswer({
      status: 200,
      body: JSON.stringify({ url: target }),
    });
    release();
    await page.getByRole('button', { name: 'Get Business 10' }).click();
    await page.waitForURL(target);
    await expect(page.locator('h1').innerText()).resolves.toBe('Create your account');
    await context.close();
  }, 120_000);
});
