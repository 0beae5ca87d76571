import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { alertTexts, launchBrowser } from './support/browser';
import {
  apiCall,
  buyViaApi,
  newPage,
  password,
  pathOf,
  screenshot,
  signInThroughPage,
  signUpViaApi,
  startWebStack,
  uniqueEmail,
  verifiedAccountViaApi,
  type Stack,
} from './support/real-stack';

/**
 * The purchase journey against the real identity and billing services behind the gateway, with the
 * local test payment provider: pricing → test checkout → post-checkout → the area → Billing → portal.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startWebStack('webbuy');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** /pricing → 'Get {plan}' → the test checkout page → pay with the test card → /post-checkout?sid=…; answers the sid. */
async function buyThroughPages(page: Page, planName: string, email: string, price: string): Promise<string> {
  await page.goto(`${stack.publicUrl}/pricing`);
  await page.getByRole('button', { name: `Get ${planName}`, exact: true }).click();
  await page.waitForURL(/\/test-checkout\/cs_test_[0-9a-f]+$/);
  await page.getByText('Test mode — no card is charged').waitFor();
  const summary = page.getByTestId('test-checkout-summary');
  await expect.poll(() => summary.innerText()).toContain(planName);
  await expect.poll(() => summary.innerText()).toContain(`${price} per month`);
  await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('4242 4242 4242 4242');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: `Pay ${price}` }).click();
  await page.waitForURL(/\/post-checkout\?sid=cs_test_[0-9a-f]+$/);
  return new URL(page.url()).searchParams.get('sid')!;
}

async function createAccountOnPostCheckout(page: Page, secret = password) {
  await page.getByLabel('Password').fill(secret);
  await page.getByRole('button', { name: 'Create account' }).click();
}

describe('the purchase journey', () => {
  it('Personal: pricing → test checkout → post-checkout → /app/personal/devices → Billing shows the plan and one paid invoice', async () => {
    const email = uniqueEmail('penny');
    const { page, errors, close } = await newPage(browser);
    const sid = await buyThroughPages(page, 'Personal', email, '$7.99');

    await expect.poll(() => page.locator('h1').innerText()).toBe('Create your account');
    await expect.poll(() => page.getByTestId('purchase-plan').innerText()).toBe('Personal');
    await expect(page.getByTestId('purchase-seats').count()).resolves.toBe(0);
    const emailField = page.getByLabel('Email');
    await expect(emailField.inputValue()).resolves.toBe(email);
    await expect(emailField.evaluate((input: HTMLInputElement) => input.readOnly)).resolves.toBe(true);
    await screenshot(page, 'post-checkout');

    await createAccountOnPostCheckout(page);
    await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL('**/app/personal/billing');
    const plan = page.getByTestId('current-plan');
    await expect.poll(() => plan.innerText()).toContain('Personal');
    await expect.poll(() => plan.innerText()).toContain('active');
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('th, td').allInnerTexts();
    expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}$/);
    // What the charge was (issue #26's Description column), then the amount, the status, and the
    // receipt link named by the invoice's number.
    expect(cells.slice(1)).toEqual([
      'Personal plan, first month',
      '$7.99',
      'paid',
      expect.stringMatching(/^QW-\d{6}$/),
    ]);
    await expect(page.getByRole('link', { name: 'Manage Billing' }).getAttribute('href')).resolves.toBe(
      '/api/billing/manage',
    );
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'personal-billing');

    // The purchase belongs to the new account on the server too.
    const me = await apiCall(stack, 'GET', `/api/checkout/verify?sid=${sid}`);
    expect(me.data).toMatchObject({ email, plan_code: 'personal', account_type: 'personal' });
    expect(errors).toEqual([]);
    await close();
  });

  it('Business 10: lands on /app/business/devices; the business Billing tab shows the invoice, Account shows the organization', async () => {
    const email = uniqueEmail('bea');
    const { page, errors, close } = await newPage(browser);
    await buyThroughPages(page, 'Business 10', email, '$50.00');
    await expect.poll(() => page.getByTestId('purchase-plan').innerText()).toBe('Business 10');
    await expect.poll(() => page.getByTestId('purchase-seats').innerText()).toBe('1');
    // The buyer names the organization right here (issue #26); a name with only spaces is no name.
    await page.getByLabel('Organization name').fill('  Bea   Works  ');
    await screenshot(page, 'post-checkout-business');
    await createAccountOnPostCheckout(page);
    await page.waitForURL(`${stack.publicUrl}/app/business/devices`, { timeout: 20_000 });

    // The organization selector on every screen.
    const selector = page.getByLabel('Organization');
    await expect.poll(() => selector.locator('option:checked').innerText()).toBe('Bea Works');

    await page.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL('**/app/business/billing');
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Business 10');
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('active');
    const rows = page.locator('table tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().locator('td').allInnerTexts()).resolves.toEqual([
      'Business 10 plan, first month',
      '$50.00',
      'paid',
      expect.stringMatching(/^QW-\d{6}$/),
    ]);
    await screenshot(page, 'business-billing');

    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL('**/app/business/account');
    const tiles = page.locator('.org-cards .qw-stat-tile');
    await expect.poll(() => tiles.count()).toBe(4);
    const texts = await tiles.allInnerTexts();
    expect(texts[0]).toMatch(/^Organization name\nBea Works/);
    expect(texts[1]).toBe('Plan\nBusiness 10');
    expect(texts[2]).toBe('Users\n1 / 10');
    expect(texts[3]).toMatch(/^Created\n\d{4}-\d{2}-\d{2}$/);
    const hrefs = await page
      .locator('.org-actions a')
      .evaluateAll((links) => links.map((link) => [link.textContent, link.getAttribute('href')]));
    expect(hrefs).toEqual([
      ['Manage Users', '/app/business/users'],
      ['Manage Devices', '/app/business/devices'],
      ['Billing', '/app/business/billing'],
      ['Support', '/support'],
    ]);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'business-account');

    // Signed in again later, the business account lands on the business overview.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${stack.publicUrl}/`);
    await signInThroughPage(page, stack.publicUrl, email);
    await expect.poll(() => pathOf(page)).toBe('/app/business/overview');
    expect(errors).toEqual([]);
    await close();
  });

  it('a second visit to /post-checkout for an already-registered email signs in instead of signing up', async () => {
    const email = uniqueEmail('sam');
    const sid = await buyViaApi(stack, 'gaming', email);
    await signUpViaApi(stack, email);

    const { page, errors, close } = await newPage(browser);
    const calls: string[] = [];
    page.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path.startsWith('/api/auth/') || path === '/api/checkout/claim')
        calls.push(`${response.request().method()} ${path} ${response.status()}`);
    });
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await expect.poll(() => page.getByTestId('purchase-plan').count()).toBe(1);
    await expect.poll(() => page.getByTestId('purchase-plan').innerText()).toBe('Gaming');

    // A wrong password: the sign-in failure is alerted in the page with the server's message, and nothing is claimed.
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => alertTexts(page)).toEqual(['Invalid email or password.']);
    await expect.poll(() => page.getByRole('button', { name: 'Create account' }).isEnabled()).toBe(true);
    expect(pathOf(page)).toBe(`/post-checkout?sid=${sid}`);

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
    expect(calls.filter((call) => !call.startsWith('POST /api/auth/refresh'))).toEqual([
      'POST /api/auth/signup 409',
      'POST /api/auth/login 401',
      'POST /api/auth/signup 409',
      'POST /api/auth/login 200',
      'POST /api/checkout/claim 200',
    ]);
    await page.getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Gaming');

    // A third visit, signed in already: the automatic redirect sends the person home.
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await page.waitForURL(`${stack.publicUrl}/app/personal/overview`);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('an existing customer with two-factor on finishes the purchase with the code step', async () => {
    const email = uniqueEmail('tess');
    // Two-factor sign-in needs a confirmed address.
    const token = await verifiedAccountViaApi(stack, email);
    const enrol = await apiCall(stack, 'POST', '/api/me/mfa/enrol', undefined, token);
    const secret = enrol.data.secret as string;
    const confirmed = await apiCall(stack, 'POST', '/api/me/mfa/confirm', { code: await generate({ secret }) }, token);
    expect(confirmed.status).toBe(200);
    const sid = await buyViaApi(stack, 'personal', email);

    const { page, errors, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await createAccountOnPostCheckout(page);
    await page
      .getByLabel('Authentication code')
      .fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
    await page.getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Personal');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('post-checkout edge cases', () => {
  it('an account made before the purchase, its address unconfirmed, is told to confirm it first', async () => {
    const email = uniqueEmail('uma');
    await signUpViaApi(stack, email);
    const sid = await buyViaApi(stack, 'personal', email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect
      .poll(() => alertTexts(page))
      .toEqual([
        'Confirm your email address first: open the link we sent to it, then add this purchase to your account.',
      ]);
    // The person is signed in now, yet the page stays with its message: the automatic redirect must
    // not carry them off to their devices once the page's own flow has ended.
    await page.waitForTimeout(2_000);
    expect(new URL(page.url()).pathname).toBe('/post-checkout');
    expect(await alertTexts(page)).toEqual([
      'Confirm your email address first: open the link we sent to it, then add this purchase to your account.',
    ]);
    await screenshot(page, 'post-checkout-unconfirmed');
    await page.setViewportSize({ width: 390, height: 740 });
    await screenshot(page, 'post-checkout-unconfirmed');
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it('without a session id the form shows with empty data; no password alerts "Please enter a password." at the field', async () => {
    const { page, errors, close } = await newPage(browser, { width: 360 });
    await page.goto(`${stack.publicUrl}/post-checkout`);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Create your account');
    const emailField = page.getByLabel('Email');
    await expect(emailField.inputValue()).resolves.toBe('');
    await expect(emailField.evaluate((input: HTMLInputElement) => input.readOnly)).resolves.toBe(false);
    await expect(page.getByTestId('purchase-summary').count()).resolves.toBe(0);
    await emailField.fill('nobody@example.com');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => alertTexts(page)).toEqual(['Please enter a password.']);
    // The alert is the password field's own error: the field is marked and described by it.
    const passwordField = page.getByLabel('Password');
    await expect(passwordField.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(
      passwordField.evaluate(
        (input) => document.getElementById(input.getAttribute('aria-describedby')?.split(' ').pop() ?? '')?.textContent,
      ),
    ).resolves.toBe('Please enter a password.');
    await expect(emailField.getAttribute('aria-invalid')).resolves.toBeNull();
    // Typing a password clears the mark.
    await passwordField.fill('x');
    await expect.poll(() => passwordField.getAttribute('aria-invalid')).toBeNull();
    // No email: the spec's alert stays, and the email box is marked with words of its own.
    await emailField.fill('');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect
      .poll(() => alertTexts(page))
      .toEqual(['Please enter a password.', 'Enter the email address for your account.']);
    await expect(emailField.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(passwordField.getAttribute('aria-invalid')).resolves.toBeNull();
    await emailField.fill('nobody@example.com');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'post-checkout-empty');
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it("shows 'Finalizing your purchase…' while verifying, then alerts the server's error for an unpaid or unknown checkout", async () => {
    const started = await apiCall(stack, 'POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const { page, errors, close } = await newPage(browser);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/checkout/verify**', async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(`${stack.publicUrl}/post-checkout?session_id=${started.data.session_id}`);
    await expect.poll(() => page.locator('.co-status').innerText()).toBe('Finalizing your purchase…');
    await expect(page.getByRole('button', { name: 'Create account' }).count()).resolves.toBe(0);
    release();
    await expect
      .poll(() => alertTexts(page))
      .toEqual(['This checkout has not been paid yet. Finish the payment, or start again from the pricing page.']);
    await expect.poll(() => page.getByRole('button', { name: 'Create account' }).count()).toBe(1);
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('');

    await page.goto(`${stack.publicUrl}/post-checkout?sid=cs_test_nope`);
    await expect
      .poll(() => alertTexts(page))
      .toEqual(['We could not find this checkout. If you paid, contact support with your receipt.']);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it("a network error verifying alerts 'Error verifying checkout.'; a failed claim without a server message alerts 'Claim failed (status 500)'", async () => {
    const email = uniqueEmail('una');
    const sid = await buyViaApi(stack, 'personal', email);
    const { page, errors, close } = await newPage(browser);
    await page.route('**/api/checkout/verify**', (route) => route.abort('connectionreset'));
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await expect.poll(() => alertTexts(page)).toEqual(['Error verifying checkout.']);
    await page.unroute('**/api/checkout/verify**');

    await page.route('**/api/checkout/claim', (route) =>
      route.fulfill({ status: 500, body: 'upstream exploded', contentType: 'text/plain' }),
    );
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => alertTexts(page)).toEqual(['Claim failed (status 500)']);
    // Signed up but not claimed: the page stays with its message (the person can try again here)
    // instead of the automatic redirect carrying them off before they have read it.
    await page.waitForTimeout(2_000);
    expect(new URL(page.url()).pathname).toBe('/post-checkout');
    expect(await alertTexts(page)).toEqual(['Claim failed (status 500)']);
    // Trying again once the claim works signs in with the same password and adds the purchase.
    await page.unroute('**/api/checkout/claim');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);

  it("a weak password is alerted at the password field with the server's message", async () => {
    const sid = await buyViaApi(stack, 'personal', uniqueEmail('vic'));
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await expect.poll(() => page.getByTestId('purchase-plan').count()).toBe(1);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => alertTexts(page)).toEqual(['Password must be at least 10 characters.']);
    await expect(page.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#post-checkout-password-error').innerText()).resolves.toBe(
      'Password must be at least 10 characters.',
    );
    expect(pathOf(page)).toBe(`/post-checkout?sid=${sid}`);
    expect(errors).toEqual([]);
    await close();
  }, 120_000);
});

describe('the test checkout page', () => {
  it('says a declined or mistyped card inline, pays with the test card, and links on once paid', async () => {
    const started = await apiCall(stack, 'POST', '/api/checkout', { plan_code: 'gaming', quantity: 1 });
    const sid = started.data.session_id as string;
    const { page, errors, close } = await newPage(browser, { width: 360 });
    await page.goto(`${stack.publicUrl}/test-checkout/${sid}`);
    await page.getByRole('button', { name: 'Pay $11.99' }).waitFor();
    await page.getByText('4000 0000 0000 0002', { exact: false }).waitFor();
    await screenshot(page, 'test-checkout');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);

    const email = uniqueEmail('wren');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByRole('button', { name: 'Pay $11.99' }).click();
    await expect
      .poll(() => page.locator('.qw-field__error').innerText())
      .toBe('Your card was declined. (Test card 4000 0000 0000 0002 always declines.)');
    await page.getByLabel('Card number').fill('4242 4242 4242 4241');
    await page.getByRole('button', { name: 'Pay $11.99' }).click();
    await expect
      .poll(() => page.locator('.qw-field__error').innerText())
      .toBe('That card number is not valid. Use the test card 4242 4242 4242 4242.');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/pay', async (route) => {
      await released;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Pay $11.99' }).click();
    const busy = page.locator('form button[type="submit"]');
    await expect.poll(() => busy.innerText()).toBe('Paying…');
    await expect(busy.isDisabled()).resolves.toBe(true);
    release();
    await page.waitForURL(`${stack.publicUrl}/post-checkout?sid=${sid}`);

    await page.goto(`${stack.publicUrl}/test-checkout/${sid}`);
    const next = page.getByRole('link', { name: 'Continue to create your account' });
    await expect(next.getAttribute('href')).resolves.toBe(`/post-checkout?sid=${sid}`);
    expect(errors).toEqual([]);
    await close();
  });
});

describe('the test billing portal', () => {
  it('Manage Billing opens the portal; cancelling within 7 days refunds in full and cancels now', async () => {
    const email = uniqueEmail('xena');
    const sid = await buyViaApi(stack, 'gaming', email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await createAccountOnPostCheckout(page);
    await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
    await page.goto(`${stack.publicUrl}/app/personal/billing`);
    await page.getByRole('link', { name: 'Manage Billing' }).click();
    await page.waitForURL(`${stack.publicUrl}/billing/test-portal?return=%2Fapp%2Fpersonal%2Fbilling`);
    await page.getByText('Test mode — no card is charged').waitFor();
    const facts = page.getByTestId('portal-plan');
    await expect.poll(() => facts.innerText()).toContain('Gaming');
    await expect.poll(() => facts.innerText()).toMatch(/Status\s+active/);
    await expect.poll(() => facts.innerText()).toMatch(/Renews on\s+\d{4}-\d{2}-\d{2}/);
    await screenshot(page, 'test-portal');

    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    const modal = page.locator('dialog.qw-modal');
    await expect.poll(() => modal.innerText()).toContain('Within 7 days of your first payment');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await modal.getByRole('button', { name: 'Cancel subscription' }).click();
    await expect
      .poll(() => page.locator('.qw-alert--success').innerText())
      .toBe('Your subscription is canceled and $11.99 was refunded in full.');
    await expect.poll(() => facts.innerText()).toMatch(/Status\s+canceled/);
    await expect(page.getByRole('button', { name: 'Cancel subscription' }).count()).resolves.toBe(0);
    await expect(page.locator('table tbody tr td').allInnerTexts()).resolves.toEqual([
      'Gaming plan, first month',
      '$11.99',
      'refunded',
      expect.stringMatching(/^QW-\d{6}$/),
    ]);

    await page.getByRole('link', { name: 'Back to Quietwire' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/personal/billing`);
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('canceled');
    expect(errors).toEqual([]);
    await close();
  });

  for (const width of [1280, 390]) {
    it(`changes the card in the portal: a declined card is said at the field, a good one is named on Billing (${width} px)`, async () => {
      const email = uniqueEmail(`cara${width}`);
      const sid = await buyViaApi(stack, 'personal', email);
      const { page, errors, close } = await newPage(browser, { width });
      await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
      await createAccountOnPostCheckout(page);
      await page.waitForURL(`${stack.publicUrl}/app/personal/devices`);
      await page.goto(`${stack.publicUrl}/app/personal/billing`);
      await expect.poll(() => page.getByTestId('current-card').innerText()).toContain('Paid with Visa ending in 4242');
      await page.getByRole('link', { name: 'Manage Billing' }).click();
      await page.waitForURL(/\/billing\/test-portal/);
      await expect.poll(() => page.getByTestId('portal-card').innerText()).toBe('Visa ending in 4242');

      const form = page.getByRole('form', { name: 'Update card' });
      await form.getByLabel('Card number').fill('4000 0000 0000 0002');
      await form.getByRole('button', { name: 'Update card' }).click();
      await expect
        .poll(() => form.innerText())
        .toContain('Your card was declined. (Test card 4000 0000 0000 0002 always declines.)');
      await expect.poll(() => page.getByTestId('portal-card').innerText()).toBe('Visa ending in 4242');

      await form.getByLabel('Card number').fill('5555 5555 5555 4444');
      await form.getByRole('button', { name: 'Update card' }).click();
      await expect
        .poll(() => page.getByTestId('card-result').innerText())
        .toBe('Your card is now Mastercard ending in 4444.');
      await expect.poll(() => page.getByTestId('portal-card').innerText()).toBe('Mastercard ending in 4444');
      await expect(form.getByLabel('Card number').inputValue()).resolves.toBe('');
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
      await screenshot(page, 'test-portal-card');

      await page.getByRole('link', { name: 'Back to Quietwire' }).click();
      await page.waitForURL(`${stack.publicUrl}/app/personal/billing`);
      await expect
        .poll(() => page.getByTestId('current-card').innerText())
        .toContain('Paid with Mastercard ending in 4444');
      expect(errors).toEqual([]);
      await close();
    });
  }

  it("the business Billing tab's Manage Billing opens the organization's plan in the portal", async () => {
    const email = uniqueEmail('yuri');
    const sid = await buyViaApi(stack, 'business50', email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/post-checkout?sid=${sid}`);
    await createAccountOnPostCheckout(page);
    await page.waitForURL(`${stack.publicUrl}/app/business/devices`, { timeout: 20_000 });
    await page.goto(`${stack.publicUrl}/app/business/billing`);
    await expect.poll(() => page.getByTestId('current-plan').innerText()).toContain('Business 50');
    await page.getByRole('link', { name: 'Manage Billing' }).click();
    await page.waitForURL(/\/billing\/test-portal\?return=%2Fapp%2Fbusiness%2Fbilling&org_id=[0-9a-f-]{36}$/);
    await expect.poll(() => page.getByTestId('portal-plan').innerText()).toContain('Business 50');
    await page.getByRole('link', { name: 'Back to Quietwire' }).click();
    await page.waitForURL(`${stack.publicUrl}/app/business/billing`);
    expect(errors).toEqual([]);
    await close();
  });

  it('a signed-out visit to the portal or to /api/billing/manage goes to sign-in first', async () => {
    const { page, close } = await newPage(browser);
    await page.goto(`${stack.publicUrl}/billing/test-portal?return=/app/personal/billing`);
    await page.waitForURL(
      `${stack.publicUrl}/login?next=${encodeURIComponent('/billing/test-portal?return=/app/personal/billing')}`,
    );
    await page.goto(`${stack.publicUrl}/api/billing/manage`);
    await page.waitForURL(`${stack.publicUrl}/login?next=%2Fapp%2Fpersonal%2Fbilling`);
    await close();
  });
});
