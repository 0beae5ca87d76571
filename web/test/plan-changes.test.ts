import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { registerTestNode } from '../../services/gateway/test/support/nodes.ts';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  apiCall,
  buyViaApi,
  newPage,
  password,
  screenshot,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';

/**
 * Issue #15 in Chromium against the real services (identity, billing with the local test provider,
 * provisioning, telemetry, the gateway serving web/dist): plans are changed, resumed, bought again
 * and Business plans bought inside the app by a signed-in person, and the Devices page says why
 * devices are inactive once a plan ends.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startWebStack('webplans', { devices: true });
  await registerTestNode(stack, 'eu-1');
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A verified account with a paid plan claimed through the API; answers its access token and the plan's test clock. */
async function customerWithClock(email: string, planCode = 'personal'): Promise<{ token: string; clockId: string }> {
  const token = await verifiedAccountViaApi(stack, email);
  const sessionId = await buyViaApi(stack, planCode, email);
  const claim = await apiCall(stack, 'POST', '/api/checkout/claim', { session_id: sessionId, email }, token);
  if (claim.status !== 200) throw new Error(`claim failed: ${claim.status} ${JSON.stringify(claim.data)}`);
  const checkout = await apiCall(stack, 'GET', `/api/billing/test-checkout/${sessionId}`);
  return { token, clockId: checkout.data.test_clock_id as string };
}

async function customer(email: string, planCode = 'personal'): Promise<string> {
  return (await customerWithClock(email, planCode)).token;
}

const base = () => stack.publicUrl;

/** Pays the test checkout the app sent the browser to: its address is the signed-in account's, already filled in. */
async function payTestCheckout(page: Page, email: string, price: string): Promise<void> {
  await page.waitForURL(/\/test-checkout\/cs_test_[0-9a-f]+$/);
  await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(email);
  await page.getByRole('button', { name: `Pay ${price}` }).click();
  await page.waitForURL(/\/checkout\/complete\?sid=cs_test_[0-9a-f]+$/);
}

describe('plans inside the app', () => {
  it('upgrades Personal → Gaming from Billing: the charge is shown, confirmed, then the new plan', async () => {
    const email = uniqueEmail('uli');
    await customer(email);
    const { page, errors, close } = await newPage(browser);
    await signInThroughPage(page, base(), email, password, `?next=${encodeURIComponent('/app/personal/billing')}`);
    await page.waitForURL(`${base()}/app/personal/billing`);
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Personal');

    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Change plan' }) });
    await expect(card.getByRole('radio', { name: /Personal/ }).isChecked()).resolves.toBe(false);
    await expect.poll(() => card.innerText()).toMatch(/Personal\s+\$7\.99\/month\s+Current plan/);
    await card.getByRole('radio', { name: /Gaming/ }).check();
    // Bought a moment ago: (11.99 − 7.99) for the whole month left.
    await expect
      .poll(() => page.getByTestId('plan-change-preview').innerText())
      .toMatch(
        /^Charged now: \$4\.00 for the rest of this period on Gaming\. Then \$11\.99 a month from \d{4}-\d{2}-\d{2}\.$/,
      );
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'billing-change-plan');

    await card.getByRole('button', { name: 'Change to Gaming' }).click();
    const modal = page.locator('dialog.qw-modal');
    await expect.poll(() => modal.innerText()).toContain('Charged now: $4.00');
    await modal.getByRole('button', { name: 'Change to Gaming' }).click();
    await expect
      .poll(() => page.getByTestId('plan-change-result').innerText())
      .toBe('You’re now on Gaming. $4.00 was charged for the rest of this period.');
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Gaming');
    await expect
      .poll(() => page.locator('table tbody tr td').allInnerTexts())
      .toEqual([
        expect.stringMatching(
          /^Upgrade from Personal to Gaming, prorated for \d{1,2} [A-Z][a-z]{2} – \d{1,2} [A-Z][a-z]{2}$/,
        ),
        '$4.00',
        'paid',
        expect.stringMatching(/^QW-\d{6}$/),
        'Personal plan, first month',
        '$7.99',
        'paid',
        expect.stringMatching(/^QW-\d{6}$/),
      ]);
    await expect.poll(() => card.innerText()).toMatch(/Gaming\s+\$11\.99\/month\s+Current plan/);

    // The upgrade's receipt says what the charge is (issue #26).
    await page
      .getByRole('link', { name: /^Receipt QW-\d{6}$/ })
      .first()
      .click();
    await page.waitForURL((url) => url.pathname.startsWith('/billing/invoices/'));
    await expect
      .poll(() => page.getByTestId('receipt-line').innerText())
      .toMatch(/^Upgrade from Personal to Gaming, prorated for \d{1,2} [A-Z][a-z]{2} – \d{1,2} [A-Z][a-z]{2}$/);
    await expect(page.getByTestId('receipt-total').innerText()).resolves.toBe('$4.00');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'receipt-upgrade');
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('after a money-back cancel, Devices says why they are inactive, disables Add and Activate, and Billing subscribes again', async () => {
    const email = uniqueEmail('carla');
    const token = await customer(email);
    const added = await apiCall(stack, 'POST', '/api/devices', { name: 'Carla laptop', platform: 'linux' }, token);
    expect(added.status).toBe(201);
    const { page, errors, close } = await newPage(browser);
    await signInThroughPage(page, base(), email);
    await page.goto(`${base()}/app/personal/devices`);
    const row = page.locator('tr', { has: page.locator('input[value="Carla laptop"]') });
    await row.waitFor();
    await expect(page.getByTestId('devices-plan-notice').count()).resolves.toBe(0);

    // Cancel within 7 days in the portal: refunded, the plan ends now and the devices with it.
    await page.goto(`${base()}/app/personal/billing`);
    await page.getByRole('link', { name: 'Manage Billing' }).click();
    await page.waitForURL(/\/billing\/test-portal/);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.locator('dialog.qw-modal').getByRole('button', { name: 'Cancel subscription' }).click();
    await expect.poll(() => page.getByTestId('portal-plan').innerText()).toMatch(/Status\s+canceled/);

    await page.goto(`${base()}/app/personal/devices`);
    const notice = page.getByTestId('devices-plan-notice');
    await expect
      .poll(() => notice.innerText(), { timeout: 15_000 })
      .toContain(
        'Your Personal plan was canceled, so your devices are inactive. Subscribe again in Billing to turn them back on.',
      );
    // Issue #26: the status reads Suspended (the spec's Active column said No).
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/Linux\s+Suspended/);
    const activate = row.getByRole('button', { name: 'Activate' });
    await expect(activate.isDisabled()).resolves.toBe(true);
    await expect(activate.getAttribute('aria-describedby')).resolves.toBe('devices-plan-notice');
    await page.getByLabel('Name', { exact: true }).fill('Carla phone');
    await expect(page.getByRole('button', { name: 'Add', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId('device-add-blocked').innerText()).resolves.toBe(
      'Adding a device needs an active plan.',
    );
    await expect(page.locator('.devices-error').count()).resolves.toBe(0);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'devices-plan-ended');

    // The way back: Billing → Subscribe again → pay as the signed-in person → the plan is active.
    await notice.getByRole('link', { name: 'Go to Billing' }).click();
    await page.waitForURL(`${base()}/app/personal/billing`);
    const again = page.locator('section', { has: page.getByRole('heading', { name: 'Subscribe again' }) });
    await expect.poll(() => again.innerText()).toContain('Your Personal plan has ended');
    await again.getByRole('radio', { name: /Gaming/ }).check();
    await again.getByRole('button', { name: 'Subscribe to Gaming' }).click();
    await payTestCheckout(page, email, '$11.99');
    await page.waitForURL(`${base()}/app/personal/billing`);
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toMatch(/Gaming\s*active/);
    await page.locator('section', { has: page.getByRole('heading', { name: 'Change plan' }) }).waitFor();

    // Devices: the notice is gone and Activate works again.
    await page.getByRole('link', { name: 'Devices', exact: true }).click();
    await row.waitFor();
    await expect(page.getByTestId('devices-plan-notice').count()).resolves.toBe(0);
    await row.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => row.innerText()).toMatch(/Linux\s+Active/);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('a cancel after the 7 days runs to the period end; Billing resumes the plan and it can change again', async () => {
    const email = uniqueEmail('rhea');
    const { clockId } = await customerWithClock(email);
    // Eight days on: past the money-back window, so cancelling ends the plan with its period.
    await new RpcClient(await stack.connectAdmin()).request(advanceClockRpc, { clock_id: clockId, days: 8 });
    const { page, errors, close } = await newPage(browser);
    await signInThroughPage(page, base(), email, password, `?next=${encodeURIComponent('/app/personal/billing')}`);
    await page.waitForURL(`${base()}/app/personal/billing`);
    await page.getByRole('link', { name: 'Manage Billing' }).click();
    await page.waitForURL(/\/billing\/test-portal/);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.locator('dialog.qw-modal').getByRole('button', { name: 'Cancel subscription' }).click();
    await expect.poll(() => page.getByTestId('portal-plan').innerText()).toMatch(/Ends on\s+\d{4}-\d{2}-\d{2}/);
    await page.getByRole('link', { name: 'Back to Quietwire' }).click();
    await page.waitForURL(`${base()}/app/personal/billing`);

    const ending = page.locator('section', { has: page.getByRole('heading', { name: 'Your plan is set to end' }) });
    await expect
      .poll(() => ending.innerText())
      .toMatch(/Your Personal plan ends on \d{4}-\d{2}-\d{2} and won’t renew\./);
    await expect(page.getByRole('heading', { name: 'Change plan' }).count()).resolves.toBe(0);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await ending.getByRole('button', { name: 'Resume plan' }).click();
    await expect.poll(() => page.getByTestId('current-plan').locator('..').innerText()).toContain('Renews on');
    await page.getByRole('heading', { name: 'Change plan' }).waitFor();
    await expect(page.getByRole('heading', { name: 'Your plan is set to end' }).count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('a signed-in person buys Business 10 from “Sign in first” on /pricing and lands in the business area as owner', async () => {
    const email = uniqueEmail('bruno');
    await customer(email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${base()}/pricing`);
    await page
      .locator('article[data-plan="business10"]')
      .getByRole('link', { name: 'Sign in first', exact: true })
      .click();
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The chosen plan came through sign-in: Billing with Business 10 chosen.
    await page.waitForURL(`${base()}/app/personal/billing?plan=business10`);
    const form = page.getByRole('form', { name: 'Buy a Business plan' });
    await expect.poll(() => form.getByLabel('Business plan').inputValue()).toBe('business10');
    await form.getByRole('button', { name: 'Continue to payment' }).click();
    await expect.poll(() => form.getByText('Enter a name for the organization.').count()).toBeGreaterThan(0);
    await form.getByLabel('Organization name').fill('Bruno Labs');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'billing-buy-business');
    await form.getByRole('button', { name: 'Continue to payment' }).click();
    await payTestCheckout(page, email, '$50.00');
    await page.waitForURL(`${base()}/app/business/overview`, { timeout: 30_000 });
    await expect
      .poll(() =>
        page.locator('#org-selector').evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.text),
      )
      .toBe('Bruno Labs');
    // As its owner: the Users page lists them with that role.
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await expect
      .poll(() => page.getByRole('table', { name: 'Users of Bruno Labs' }).locator('tbody').innerText(), {
        timeout: 15_000,
      })
      .toMatch(/owner/i);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('an owner pays again for an organization whose plan ended, from the business Billing page', async () => {
    const email = uniqueEmail('odile');
    const token = await customer(email, 'business10');
    await expect
      .poll(async () => (await apiCall(stack, 'GET', '/api/me', undefined, token)).data.org_member, { timeout: 10_000 })
      .toBe(true);
    const { page, errors, close } = await newPage(browser);
    await signInThroughPage(page, base(), email, password, `?next=${encodeURIComponent('/app/business/billing')}`);
    await page.waitForURL(`${base()}/app/business/billing`);
    // The money-back cancel in the portal ends the plan: the organization is Suspended.
    await page.getByRole('link', { name: 'Manage Billing' }).click();
    await page.waitForURL(/\/billing\/test-portal/);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.locator('dialog.qw-modal').getByRole('button', { name: 'Cancel subscription' }).click();
    await expect.poll(() => page.getByTestId('portal-plan').innerText()).toMatch(/Status\s+canceled/);
    await page.getByRole('link', { name: 'Back to Quietwire' }).click();
    await page.waitForURL(`${base()}/app/business/billing`);

    const again = page.locator('section', { has: page.getByRole('heading', { name: 'Subscribe again' }) });
    await expect.poll(() => again.innerText()).toMatch(/The Business 10 plan of .+ has ended/);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await again.getByLabel('Business plan').selectOption('business50');
    await again.getByRole('button', { name: 'Continue to payment' }).click();
    await payTestCheckout(page, email, '$200.00');
    await page.waitForURL(`${base()}/app/business/overview`, { timeout: 30_000 });
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await expect
      .poll(() => page.getByTestId('current-plan').innerText(), { timeout: 15_000 })
      .toMatch(/Business 50\s*active/);
    await page.getByRole('link', { name: 'Devices', exact: true }).click();
    await page.getByRole('heading', { name: 'Add a device' }).waitFor();
    await expect.poll(() => page.getByTestId('devices-plan-notice').count(), { timeout: 15_000 }).toBe(0);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  for (const width of [1280, 390])
    it(`an owner moves between Business plans from business Billing with the charge shown first (issue #26, ${width} px)`, async () => {
      const email = uniqueEmail(`bea${width}`);
      const token = await customer(email, 'business10');
      await expect
        .poll(async () => (await apiCall(stack, 'GET', '/api/me', undefined, token)).data.org_member, {
          timeout: 10_000,
        })
        .toBe(true);
      const { page, errors, close } = await newPage(browser, { width });
      await signInThroughPage(page, base(), email, password, `?next=${encodeURIComponent('/app/business/billing')}`);
      await page.waitForURL(`${base()}/app/business/billing`);
      const card = page.locator('section', { has: page.getByRole('heading', { name: 'Change plan' }) });
      await expect
        .poll(() => card.innerText())
        .toMatch(/Business 10\s+\$50\.00\/month\s+Current plan\s+10 devices, up to 10 members/);
      await card.getByRole('radio', { name: /Business 50/ }).check();
      // Bought a moment ago: (200.00 − 50.00) for the whole month left.
      await expect
        .poll(() => page.getByTestId('plan-change-preview').innerText())
        .toMatch(
          /^Charged now: \$150\.00 for the rest of this period on Business 50\. Then \$200\.00 a month from \d{4}-\d{2}-\d{2}\.$/,
        );
      expect(await seriousAxeViolations(page)).toEqual([]);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'business-change-plan');
      await card.getByRole('button', { name: 'Change to Business 50' }).click();
      const modal = page.locator('dialog.qw-modal');
      await expect.poll(() => modal.innerText()).toContain('Charged now: $150.00');
      await modal.getByRole('button', { name: 'Change to Business 50' }).click();
      await expect
        .poll(() => page.getByTestId('plan-change-result').innerText())
        .toBe('You’re now on Business 50. $150.00 was charged for the rest of this period.');
      await expect.poll(() => page.getByTestId('current-plan').innerText()).toMatch(/Business 50/);
      await expect
        .poll(() => page.locator('table tbody tr td').first().innerText())
        .toMatch(
          /^Upgrade from Business 10 to Business 50, prorated for \d{1,2} [A-Z][a-z]{2} – \d{1,2} [A-Z][a-z]{2}$/,
        );

      // Back down to Business 10: nothing now, from the renewal (one member, no devices: it fits).
      await card.getByRole('radio', { name: /Business 10/ }).check();
      await expect
        .poll(() => page.getByTestId('plan-change-preview').innerText())
        .toMatch(
          /^Nothing is charged now\. You keep Business 50 until \d{4}-\d{2}-\d{2}; then Business 10 renews at \$50\.00 a month\.$/,
        );
      await screenshot(page, 'business-downgrade-preview');
      expect(errors).toEqual([]);
      await close();
    }, 120_000);
});
