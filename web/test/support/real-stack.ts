import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { analyticsService } from '@qw/analytics';
import { billingService } from '@qw/billing';
import { deviceServices } from '../../../services/gateway/test/support/products.ts';
import { startStack, type Stack } from '../../../services/gateway/test/support/stack.ts';
import { openPage, type PageOptions } from './browser';
import { screenshotDir } from './paths';
import { photograph } from './photos';

export type { Stack };

export const password = 'correct horse battery staple';
export const adminEmail = 'ops@quietwire.test';

/**
 * Identity, billing (local test provider, test clock on) and the gateway on a real loopback port,
 * serving its own copy of the built web app, with an SMTP capture. One per test file. With
 * `devices`, provisioning and telemetry too (screens that list devices); with `analytics`, the
 * analytics service; with `demoTools`, identity's demo sign-up (the demo history).
 */
export function startWebStack(
  label: string,
  options: { devices?: boolean; analytics?: boolean; demoTools?: boolean } = {},
): Promise<Stack> {
  return startStack({
    label,
    listen: true,
    adminEmails: [adminEmail],
    ...(options.demoTools ? { identity: { DEMO_TOOLS: true } } : {}),
    // The browser and the test process both buy from 127.0.0.1: the per-address checkout limit
    // (its own test is in services/gateway/test/billing-local.test.ts) would count a whole file as one buyer.
    extra: (url, mailUrl) => [
      billingService({
        PUBLIC_URL: url,
        BILLING_TEST_CLOCK: true,
        NODE_ENV: 'test',
        checkoutLimit: { max: 1000, windowSeconds: 3600 },
      }),
      ...(options.devices ? deviceServices(url, mailUrl).filter((service) => service.name !== 'billing') : []),
      ...(options.analytics ? [analyticsService({ checkEveryMs: 500 })] : []),
    ],
  });
}

let counter = 0;
/** A fresh address per test, so tests never share an account. */
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

type Json = Record<string, any>;

/** A JSON call to the gateway from the test process (no Origin header, like a non-browser client). */
export async function apiCall(
  stack: Stack,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; data: Json }> {
  const response = await fetch(`${stack.publicUrl}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, data: text ? (JSON.parse(text) as Json) : {} };
}

/** Creates an account through the API; answers its access token. */
export async function signUpViaApi(stack: Stack, email: string, secret = password): Promise<string> {
  const answer = await apiCall(stack, 'POST', '/api/auth/signup', { email, password: secret });
  if (answer.status !== 201) throw new Error(`sign-up failed: ${answer.status} ${JSON.stringify(answer.data)}`);
  return answer.data.access_token as string;
}

/**
 * Creates an account and confirms its address as its owner does (the mailed link, then choosing
 * the password on the step after it); answers the access token of the session that step starts.
 */
export async function verifiedAccountViaApi(stack: Stack, email: string, secret = password): Promise<string> {
  const created = await apiCall(stack, 'POST', '/api/auth/signup', { email, password: secret });
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${JSON.stringify(created.data)}`);
  const mail = await stack.smtp.waitFor(
    (m) =>
      (m.to as { text: string } | undefined)?.text.includes(email.toLowerCase()) === true &&
      m.subject === 'Confirm your email for Quietwire',
  );
  const token = /\/auth\/callback\?token=([\w-]+)/.exec(mail.text ?? '')?.[1];
  const verified = await apiCall(stack, 'POST', '/api/auth/verify', { token });
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${JSON.stringify(verified.data)}`);
  const set = await apiCall(stack, 'POST', '/api/auth/password/set', {
    token: verified.data.set_password_token,
    password: secret,
  });
  if (set.status !== 200) throw new Error(`set password failed: ${set.status} ${JSON.stringify(set.data)}`);
  return set.data.access_token as string;
}

/** Starts and pays a checkout with the test card; answers the session id. */
export async function buyViaApi(stack: Stack, planCode: string, email: string): Promise<string> {
  const started = await apiCall(stack, 'POST', '/api/checkout', {
    plan_code: planCode,
    plan_name: planCode,
    account_type: planCode.startsWith('business') ? 'business' : 'personal',
    quantity: 1,
  });
  if (started.status !== 200) throw new Error(`checkout failed: ${started.status}`);
  const paid = await apiCall(stack, 'POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
    email,
    card_number: '4242 4242 4242 4242',
  });
  if (paid.status !== 200) throw new Error(`payment failed: ${paid.status}`);
  return started.data.session_id as string;
}

/** Buys the plan, signs up with the email it was paid with and claims the purchase; answers the access token. */
async function claimedPurchaseViaApi(
  stack: Stack,
  email: string,
  planCode: string,
  accountType: 'personal' | 'business',
): Promise<string> {
  const sessionId = await buyViaApi(stack, planCode, email);
  const token = await signUpViaApi(stack, email);
  const claim = await apiCall(
    stack,
    'POST',
    '/api/checkout/claim',
    { session_id: sessionId, email, plan_code: planCode, account_type: accountType, quantity: 1 },
    token,
  );
  if (claim.status !== 200) throw new Error(`claim failed: ${claim.status} ${JSON.stringify(claim.data)}`);
  return token;
}

/** A personal account with a paid Personal plan. */
export async function personalCustomerViaApi(stack: Stack, email: string): Promise<void> {
  await claimedPurchaseViaApi(stack, email, 'personal', 'personal');
}

/** A business account: buys business10, signs up and claims, then waits until identity made it business. */
export async function businessAccountViaApi(stack: Stack, email: string): Promise<void> {
  const token = await claimedPurchaseViaApi(stack, email, 'business10', 'business');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const me = await apiCall(stack, 'GET', '/api/me', undefined, token);
    if (me.data.profile?.account_type === 'business') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the account never became business');
}

export type TestPage = { page: Page; errors: string[]; close(): Promise<void> };

/** A fresh context (own cookies) per test; page errors are collected for the test to check. */
export async function newPage(browser: Browser, options: PageOptions = {}): Promise<TestPage> {
  const { context, page } = await openPage(browser, options);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // Any alert the test does not expect is accepted (and recorded) so the page never hangs on it.
  page.on('dialog', (dialog) => {
    // Tests that expect a dialog add their own listener (page.once), which accepts it.
    if ((page as unknown as { listenerCount(event: string): number }).listenerCount('dialog') === 1) {
      errors.push(`unexpected ${dialog.type()}: ${dialog.message()}`);
      void dialog.accept();
    }
  });
  return { page, errors, close: () => context.close() };
}

/** Signs in on /login (optionally with ?next=…) and waits until the page has left /login. */
export async function signInThroughPage(
  page: Page,
  baseUrl: string,
  email: string,
  secret = password,
  query = '',
): Promise<void> {
  await page.goto(`${baseUrl}/login${query}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
}

export function pathOf(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screenshotDir, `${name}-${width}.png`), { fullPage: true });
}
