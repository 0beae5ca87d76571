import { sql } from 'kysely';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser, openPage } from './support/browser';
import {
  adminEmail,
  businessAccountViaApi,
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
 * Accounts and sessions in a real browser against the real identity service behind the gateway:
 * sign-in and its redirects, the email verification callback, the guards, the Account tab,
 * two-factor sign-in and password reset.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startWebStack('webauth');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const url = (path: string) => `${stack.publicUrl}${path}`;

/** Waits for the mail to `email` whose subject passes `subject`; answers the link `link` finds in it. */
async function linkInMail(email: string, subject: (subject: string) => boolean, link: RegExp): Promise<string> {
  const mail = await stack.smtp.waitFor(
    (m) => (m.to as { text: string } | undefined)?.text.includes(email) === true && subject(m.subject ?? ''),
  );
  const match = link.exec(mail.text ?? '');
  if (!match?.[1]) throw new Error(`no link ${link} in the mail to ${email}`);
  return match[1];
}

const verificationLink = (email: string) =>
  linkInMail(
    email,
    (subject) => subject === 'Confirm your email for Quietwire',
    /(http:\/\/127\.0\.0\.1:\d+\/auth\/callback\?token=[\w-]+&type=signup)/,
  );

const resetLink = (email: string) =>
  linkInMail(email, (subject) => /reset/i.test(subject), /(http:\/\/127\.0\.0\.1:\d+\/reset-password\?token=[\w-]+)/);

/**
 * The admin list holds adminEmail; its account is created and its address confirmed once (an
 * unconfirmed address on the list has no rights), by whichever test needs it first.
 */
let adminAccount: Promise<string> | undefined;
async function ensureAdminAccount(): Promise<void> {
  adminAccount ??= verifiedAccountViaApi(stack, adminEmail);
  await adminAccount;
}

async function signedInPage(email: string, options: { width?: number } = {}) {
  const test = await newPage(browser, options);
  await signInThroughPage(test.page, stack.publicUrl, email);
  return test;
}

describe('sign-in page (spec §2, §4, §8)', () => {
  it("reads 'Signing in' while busy, then sends a personal account to /app/personal/overview, replacing history", async () => {
    const email = uniqueEmail('paula');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await newPage(browser);
    // ('Sign in first' on /pricing carries the plan to Billing: web/test/plan-changes.test.ts.)
    await page.goto(url('/login'));
    await expect.poll(() => page.locator('h1').innerText()).toBe('Sign in');
    await expect(page.getByLabel('Email').getAttribute('type')).resolves.toBe('email');
    await expect(page.getByLabel('Email').evaluate((input: HTMLInputElement) => input.required)).resolves.toBe(true);
    await expect(page.getByLabel('Password').evaluate((input: HTMLInputElement) => input.required)).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).resolves.toBe(
      '/forgot-password',
    );
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'login');

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/login', async (route) => {
      await released;
      await route.continue();
    });
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    const historyLength = await page.evaluate(() => history.length);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const button = page.locator('form button[type="submit"]');
    await expect.poll(() => button.innerText()).toBe('Signing in');
    await expect(button.isDisabled()).resolves.toBe(true);
    release();
    await page.waitForURL(url('/app/personal/overview'));
    // The /login entry was replaced, not added to.
    await expect(page.evaluate(() => history.length)).resolves.toBe(historyLength);
    expect(errors).toEqual([]);
    await close();
  });

  it('shows a wrong password inline in red and stays on /login; an empty form is stopped by the browser', async () => {
    const email = uniqueEmail('wendy');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await newPage(browser, { width: 360 });
    const logins: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/api/auth/login')) logins.push(response.status());
    });
    await page.goto(url('/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(
      page.getByLabel('Email').evaluate((input: HTMLInputElement) => input.validity.valueMissing),
    ).resolves.toBe(true);
    expect(logins).toEqual([]);

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('definitely wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('.qw-alert--error');
    await expect.poll(() => alert.innerText()).toBe('Invalid email or password.');
    await expect(alert.getAttribute('role')).resolves.toBe('alert');
    await expect(alert.evaluate((element) => getComputedStyle(element).color)).resolves.toBe('rgb(180, 35, 24)');
    expect(pathOf(page)).toBe('/login');
    expect(logins).toEqual([401]);
    await expect(page.getByRole('button', { name: 'Sign in' }).isEnabled()).resolves.toBe(true);
    await screenshot(page, 'login-error');
    expect(errors).toEqual([]);
    await close();
  });

  it('sends a business account to /app/business/overview and an admin to /admin', async () => {
    const businessEmail = uniqueEmail('bo');
    await businessAccountViaApi(stack, businessEmail);
    const business = await signedInPage(businessEmail);
    await expect.poll(() => pathOf(business.page)).toBe('/app/business/overview');
    await expect.poll(() => business.page.locator('h1').innerText()).toBe('Overview');
    expect(business.errors).toEqual([]);
    await business.close();

    await ensureAdminAccount();
    const admin = await signedInPage(adminEmail);
    await expect.poll(() => pathOf(admin.page)).toBe('/admin');
    // The admin index shows the overview, inside the admin frame.
    await expect.poll(() => admin.page.locator('h1').innerText()).toBe('Overview');
    const tabs = await admin.page
      .locator('nav[aria-label="Admin area"] a')
      .evaluateAll((links) => links.map((link) => [link.textContent, link.getAttribute('href')]));
    expect(tabs).toEqual([
      ['Overview', '/admin/overview'],
      ['Accounts', '/admin/accounts'],
      ['Devices', '/admin/devices'],
      ['Telemetry', '/admin/telemetry'],
      ['Servers', '/admin/servers'],
      ['Analytics', '/admin/analytics'],
      ['View Site', '/?view=site'],
    ]);
    await expect(seriousAxeViolations(admin.page)).resolves.toEqual([]);
    await screenshot(admin.page, 'admin');
    await admin.page.getByRole('button', { name: 'Sign out' }).click();
    await admin.page.waitForURL(url('/'));
    expect(admin.errors).toEqual([]);
    await admin.close();
  });

  it("honours next=/app/personal/account but ignores '//evil.example', '/\\evil.example' and 'https://evil.example'", async () => {
    const email = uniqueEmail('nora');
    await signUpViaApi(stack, email);
    const cases: Array<[string, string]> = [
      ['/app/personal/account', '/app/personal/account'],
      ['//evil.example', '/app/personal/overview'],
      ['/\\evil.example', '/app/personal/overview'],
      ['https://evil.example', '/app/personal/overview'],
    ];
    for (const [next, expected] of cases) {
      const { page, errors, close } = await newPage(browser);
      await signInThroughPage(page, stack.publicUrl, email, password, `?next=${encodeURIComponent(next)}`);
      await expect.poll(() => pathOf(page), { message: next }).toBe(expected);
      expect(new URL(page.url()).origin).toBe(stack.publicUrl);
      expect(errors).toEqual([]);
      await close();
    }
  });

  it('signs in across two tabs without ending the session, and signing out in one signs out the other', async () => {
    const email = uniqueEmail('tab');
    await signUpViaApi(stack, email);
    const { context, page: first } = await openPage(browser);
    await signInThroughPage(first, stack.publicUrl, email);
    await first.waitForURL(url('/app/personal/overview'));
    // Two tabs restoring at once share one refresh cookie: the lock keeps them from spending it twice.
    const second = await context.newPage();
    const third = await context.newPage();
    await Promise.all([
      second.goto(url('/app/personal/account')),
      third.goto(url('/app/personal/billing')),
      first.reload(),
    ]);
    await second.getByLabel('Full name').waitFor();
    await third.getByTestId('current-plan').waitFor();
    await first.waitForURL(url('/app/personal/overview'));
    await second.reload();
    await second.getByLabel('Full name').waitFor();
    expect(pathOf(second)).toBe('/app/personal/account');

    await first.getByRole('button', { name: 'Sign out' }).click();
    await first.waitForURL(url('/'));
    await second.waitForURL(url(`/login?next=${encodeURIComponent('/app/personal/account')}`));
    await third.reload();
    await third.waitForURL(/\/login\?next=/);
    await context.close();
  });
});

describe('email verification callback (spec §2, §8)', () => {
  it("asks the person who opened the link to choose a password, then shows 'Email verified!' and 'Redirecting you to your dashboard...' and replaces the location after 1.5 s", async () => {
    const email = uniqueEmail('vera');
    await signUpViaApi(stack, email);
    const link = await verificationLink(email);
    expect(link.startsWith(`${stack.publicUrl}/auth/callback?token=`)).toBe(true);
    const { page, errors, close } = await newPage(browser);
    await page.clock.install();
    await page.goto(link);
    const historyLength = await page.evaluate(() => history.length);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Choose a password');
    await expect(page.getByText(email).count()).resolves.toBe(1);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'auth-callback-password');

    const chosen = 'my own new passphrase';
    await page.getByLabel('Password', { exact: true }).fill('too short');
    await page.getByLabel('Repeat the password').fill('too short');
    await page.getByRole('button', { name: 'Save password and continue' }).click();
    await expect
      .poll(() => page.locator('#choose-password-error').innerText())
      .toBe('Password must be at least 10 characters.');
    await page.getByLabel('Password', { exact: true }).fill(chosen);
    await page.getByLabel('Repeat the password').fill('not the same one');
    await page.getByRole('button', { name: 'Save password and continue' }).click();
    await expect.poll(() => page.locator('#choose-confirm-error').innerText()).toBe('The two passwords don’t match.');
    await page.getByLabel('Repeat the password').fill(chosen);

    // The page clock stands still from here: the redirect waits for exactly 1.5 s of it.
    await page.clock.pauseAt(new Date(Date.now() + 1_000));
    await page.getByRole('button', { name: 'Save password and continue' }).click();
    await page.getByText('Email verified!').waitFor();
    await expect(page.getByText('Redirecting you to your dashboard...').isVisible()).resolves.toBe(true);
    await page.clock.runFor(1_499);
    expect(new URL(page.url()).pathname).toBe('/auth/callback');
    await page.clock.runFor(1);
    await page.waitForURL(url('/app/personal/overview'));
    // Signed in, verified: no banner; and the callback entry was replaced.
    await page.locator('h1').waitFor();
    await expect(page.getByText('Please confirm your email address').count()).resolves.toBe(0);
    await expect(page.evaluate(() => history.length)).resolves.toBe(historyLength);

    // The password chosen there is the account's password now; the sign-up's no longer works.
    const other = await newPage(browser);
    await signInThroughPage(other.page, stack.publicUrl, email, chosen);
    await expect.poll(() => pathOf(other.page)).toBe('/app/personal/overview');
    await other.close();
    expect(errors).toEqual([]);
    await close();
  });

  for (const width of [1280, 390]) {
    it(`opened in the browser that signed up, the link confirms the address at once: no password step, still signed in, no banner (${width} px)`, async () => {
      const email = uniqueEmail(`own${width}`);
      await signUpViaApi(stack, email);
      const link = await verificationLink(email);
      const { page, errors, close } = await newPage(browser, { width });
      await signInThroughPage(page, stack.publicUrl, email);
      await expect.poll(() => pathOf(page)).toBe('/app/personal/overview');
      await page.getByText('Please confirm your email address').waitFor();
      await screenshot(page, 'verify-banner-before');

      await page.goto(link);
      await page.getByText('Email verified!').waitFor();
      await expect(page.getByText('Choose a password').count()).resolves.toBe(0);
      await screenshot(page, 'auth-callback-own-session');
      await page.waitForURL(url('/app/personal/overview'));
      await page.locator('h1').waitFor();
      await expect(page.getByText('Please confirm your email address').count()).resolves.toBe(0);
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await screenshot(page, 'verify-banner-after');
      // The same session goes on: a reload stays signed in, and the address stays confirmed.
      await page.reload();
      await page.locator('h1').waitFor();
      expect(pathOf(page)).toBe('/app/personal/overview');
      await expect(page.getByText('Please confirm your email address').count()).resolves.toBe(0);
      expect(errors).toEqual([]);
      await close();
    });
  }

  it("a link opened after the step has expired says so, on the spec's error screen", async () => {
    const email = uniqueEmail('late');
    await signUpViaApi(stack, email);
    const link = await verificationLink(email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(link);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Choose a password');
    await sql`update email_tokens set expires_at = now() - interval '1 second' where purpose = 'set_password' and user_id = (select id from users where email = ${email})`.execute(
      stack.services.identity!.db,
    );
    await page.getByLabel('Password', { exact: true }).fill('a good passphrase');
    await page.getByLabel('Repeat the password').fill('a good passphrase');
    await page.getByRole('button', { name: 'Save password and continue' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Verification failed');
    await expect
      .poll(() => page.locator('.qw-alert--error').innerText())
      .toBe('Your email verification link has expired. Please request a new one.');
    expect(errors).toEqual([]);
    await close();
  });

  it('says an expired link has expired, and its buttons go to /login?message=verification_expired and /login', async () => {
    const email = uniqueEmail('exp');
    await signUpViaApi(stack, email);
    const link = await verificationLink(email);
    await sql`update email_tokens set expires_at = now() - interval '1 second' where user_id = (select id from users where email = ${email})`.execute(
      stack.services.identity!.db,
    );
    const { page, errors, close } = await newPage(browser, { width: 360 });
    await page.goto(link);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Verification failed');
    await expect
      .poll(() => page.locator('.qw-alert--error').innerText())
      .toBe('Your email verification link has expired. Please request a new one.');
    await expect(page.getByRole('link', { name: 'Get new verification link' }).getAttribute('href')).resolves.toBe(
      '/login?message=verification_expired',
    );
    await expect(page.getByRole('link', { name: 'Back to login' }).getAttribute('href')).resolves.toBe('/login');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'auth-callback-failed');
    await page.getByRole('link', { name: 'Get new verification link' }).click();
    await page.waitForURL(url('/login?message=verification_expired'));
    await expect
      .poll(() => page.locator('.qw-alert--info').innerText())
      .toBe('Your email verification link has expired. Please sign in to request a new verification email.');

    // Signed in, the banner mails a new link, which works.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/app/personal/overview'));
    await page.getByRole('button', { name: 'Resend verification email' }).click();
    await expect.poll(() => page.locator('.qw-alert--success').innerText()).toContain(`We sent a new link to ${email}`);
    const verificationMails = () =>
      stack.smtp.messages.filter(
        (m) =>
          (m.to as { text: string } | undefined)?.text.includes(email) &&
          m.subject === 'Confirm your email for Quietwire',
      ).length;
    await expect.poll(verificationMails).toBe(2);
    expect(errors).toEqual([]);
    await close();
  });

  it('reads the error parameters, a missing token and an unknown token', async () => {
    const { page, errors, close } = await newPage(browser);
    const cases: Array<[string, string]> = [
      [
        '?error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired',
        'Your email verification link has expired. Please request a new one.',
      ],
      ['?error=server_error&error_description=The+mail+server+is+down', 'The mail server is down'],
      ['?error=server_error', 'Authentication error: server_error'],
      ['', 'No session found. Your verification link may have expired.'],
      [
        '?token=not-a-real-token&type=signup',
        'Failed to verify email. Please try again or request a new verification link.',
      ],
    ];
    for (const [query, text] of cases) {
      await page.goto(url(`/auth/callback${query}`));
      await expect.poll(() => page.locator('h1').innerText(), { message: query }).toBe('Verification failed');
      await expect.poll(() => page.locator('.qw-alert--error').innerText()).toBe(text);
    }
    await page.getByRole('link', { name: 'Back to login' }).click();
    await page.waitForURL(url('/login'));
    expect(errors).toEqual([]);
    await close();
  });
});

describe('automatic redirect and guards (spec §2)', () => {
  // Each full load restores the session from the refresh cookie before the redirect; the paths are
  // checked in three groups, each test a handful of loads, so a busy machine does not run one test
  // out of its time with a dozen.
  for (const [group, paths] of [
    ['the public pages', ['/', '/pricing', '/faq', '/about', '/contact']],
    ['the sign-in, callback and checkout pages', ['/login', '/app', '/auth/callback', '/post-checkout']],
  ] as const) {
    it(`sends a signed-in person from ${group} home`, async () => {
      const email = uniqueEmail('rita');
      await signUpViaApi(stack, email);
      const { page, errors, close } = await signedInPage(email);
      for (const path of paths) {
        await page.goto(url(path));
        // On a busy machine a load and the session's restore can take more than the polls' usual 10 s.
        await expect.poll(() => pathOf(page), { message: path, timeout: 15_000 }).toBe('/app/personal/overview');
      }
      expect(errors).toEqual([]);
      await close();
    });
  }

  it('sends a signed-in person to next=/app/personal/billing when given, and never to another site', async () => {
    const email = uniqueEmail('rita');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await signedInPage(email);
    await page.goto(url('/login?next=/app/personal/billing'));
    await expect.poll(() => pathOf(page)).toBe('/app/personal/billing');
    await page.goto(url('/pricing?next=//evil.example'));
    await expect.poll(() => pathOf(page)).toBe('/app/personal/overview');
    expect(errors).toEqual([]);
    await close();
  });

  it('the admin guard sends a non-admin from /admin/overview (and /admin) to /app/personal/overview', async () => {
    const email = uniqueEmail('nina');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await signedInPage(email);
    await page.goto(url('/admin/overview'));
    await expect.poll(() => pathOf(page)).toBe('/app/personal/overview');
    await page.goto(url('/admin'));
    await expect.poll(() => pathOf(page)).toBe('/app/personal/overview');
    await page.goto(url('/admin/servers'));
    await expect.poll(() => pathOf(page)).toBe('/app/personal/overview');
    expect(errors).toEqual([]);
    await close();

    await ensureAdminAccount();
    const admin = await signedInPage(adminEmail);
    await admin.page.goto(url('/admin/servers'));
    await expect.poll(() => admin.page.locator('h1').innerText()).toBe('Servers');
    expect(pathOf(admin.page)).toBe('/admin/servers');
    await admin.close();
  });

  it('the protected wrapper sends a signed-out visitor to /login?next=… and back there after sign-in', async () => {
    const email = uniqueEmail('otto');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(url('/app/personal/account'));
    await page.waitForURL(url('/login?next=%2Fapp%2Fpersonal%2Faccount'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/app/personal/account'));
    await page.getByLabel('Full name').waitFor();

    for (const path of ['/dashboard', '/app/business/account', '/post-login']) {
      await page.goto(url(path));
      await page.locator('h1').first().waitFor();
    }
    // The post-login screen's rule 6: a personal account goes to its devices.
    await expect.poll(() => pathOf(page)).toBe('/app/personal/devices');
    await page.goto(url('/dashboard'));
    await expect.poll(() => page.locator('h1').innerText()).toBe('Dashboard');
    await expect(page.locator('main h2').allInnerTexts()).resolves.toEqual(['Plan status', 'Devices']);
    await page.goto(url('/app/business/account'));
    await expect.poll(() => page.getByTestId('no-organization').innerText()).toBe('No organization found.');

    await page.goto(url('/app/personal/overview'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/'));
    await expect.poll(() => page.locator('h1').innerText()).toBe('Private. Fast. Simple.');
    // Back to the area after signing out: the wrapper asks for a sign-in again.
    await page.goBack();
    await page.waitForURL(url('/login?next=%2Fapp%2Fpersonal%2Foverview'));
    await page.goto(url('/dashboard'));
    await page.waitForURL(url('/login?next=%2Fdashboard'));
    expect(errors).toEqual([]);
    await close();
  });
});

describe('Account tab (spec §2, §5)', () => {
  it("saves Full name and shows 'Saved' for 2 seconds; a bad avatar URL shows the server's message in red", async () => {
    const email = uniqueEmail('ada');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await newPage(browser);
    await page.clock.install();
    await signInThroughPage(page, stack.publicUrl, email);
    await page.getByRole('link', { name: 'Account' }).click();
    await page.waitForURL(url('/app/personal/account'));
    const fullName = page.getByLabel('Full name');
    await expect.poll(() => fullName.isEnabled()).toBe(true);
    // Two-factor sign-in waits for a confirmed address.
    await expect
      .poll(() => page.getByTestId('mfa-needs-verified-email').innerText())
      .toBe(
        'Confirm your email address first: open the link we sent you. Then you can turn on two-factor sign-in here.',
      );
    await expect(page.getByRole('button', { name: 'Set up two-factor sign-in' }).count()).resolves.toBe(0);
    await fullName.fill('Ada Lovelace');
    // The page clock stands still from here: 'Saved' stays for exactly 2 s of it.
    await page.clock.pauseAt(new Date(Date.now() + 1_000));
    await page.getByRole('button', { name: 'Save' }).click();
    const message = page.locator('.account-message').first();
    await expect.poll(() => message.innerText()).toBe('Saved');
    await page.clock.runFor(1_999);
    await expect(message.innerText()).resolves.toBe('Saved');
    await page.clock.runFor(1);
    await expect.poll(() => message.innerText()).toBe('');
    await page.clock.resume();

    await page.reload();
    await expect.poll(() => page.getByLabel('Full name').inputValue()).toBe('Ada Lovelace');

    await page.getByLabel('Avatar URL').fill('http://example.com/ada.png');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => message.innerText()).toBe('Avatar URL must be an https:// address.');
    await expect(message.evaluate((element) => getComputedStyle(element).color)).resolves.toBe('rgb(180, 35, 24)');
    // An error stays: well past the 2 s of 'Saved' on the page clock, it is still there.
    await page.clock.runFor(10_000);
    await expect(message.innerText()).resolves.toBe('Avatar URL must be an https:// address.');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'personal-account');
    expect(errors).toEqual([]);
    await close();
  });

  it('two-factor: enrol with the secret shown, confirm, see ten recovery codes, sign out, sign in with a code', async () => {
    const email = uniqueEmail('mfa');
    await verifiedAccountViaApi(stack, email);
    const { page, errors, close } = await signedInPage(email, { width: 360 });
    await page.goto(url('/app/personal/account'));
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secretBox = page.locator('#mfa-secret');
    await secretBox.waitFor();
    const secret = (await secretBox.innerText()).replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expect(
      page.getByRole('img', { name: 'QR code to add Quietwire to an authenticator app' }).getAttribute('src'),
    ).resolves.toMatch(/^data:image\/png;base64,/);
    await screenshot(page, 'mfa-setup');

    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect
      .poll(() => page.locator('#mfa-setup-code-error').innerText())
      .toBe('That code is not right. Enter the 6-digit code your app shows now.');
    await page.getByLabel('Code from the app').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByTestId('recovery-codes').locator('li');
    await expect.poll(() => codes.count()).toBe(10);
    expect(await codes.first().innerText()).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    await page.getByRole('button', { name: 'I’ve saved them' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Turn off two-factor sign-in' }).count()).toBe(1);
    // Turning it on ended every session; this tab goes on with the new one it was given.
    await page.reload();
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();
    expect(pathOf(page)).toBe('/app/personal/account');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/'));
    await page.goto(url('/login?next=/app/personal/account'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const codeField = page.getByLabel('Authentication code');
    await codeField.waitFor();
    await expect(page.getByText('Use a recovery code', { exact: false }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'login-mfa');
    await codeField.fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect
      .poll(() => page.locator('#mfa-code-error').innerText())
      .toBe('That code is not right. Enter the code your app shows now, or a recovery code.');
    await codeField.fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(url('/app/personal/account'));
    expect(errors).toEqual([]);
    await close();
  });

  it('password reset: forgot → email → reset page → sign in with the new password', async () => {
    const email = uniqueEmail('reset');
    await signUpViaApi(stack, email);
    const { page, errors, close } = await newPage(browser);
    await page.goto(url('/login'));
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(url('/forgot-password'));
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect
      .poll(() => page.locator('.qw-alert--success').innerText())
      .toContain(`If an account exists for ${email}`);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    const link = await resetLink(email);
    expect(link.startsWith(`${stack.publicUrl}/reset-password?token=`)).toBe(true);

    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('too short');
    await page.getByLabel('Repeat the new password').fill('too short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect
      .poll(() => page.locator('#reset-password-error').innerText())
      .toBe('Password must be at least 10 characters.');
    const newPassword = 'a brand new passphrase';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Repeat the new password').fill('a different passphrase');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect.poll(() => page.locator('#reset-confirm-error').innerText()).toBe('The two passwords don’t match.');
    await page.getByLabel('Repeat the new password').fill(newPassword);
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(url('/login?message=password_reset'));
    await expect
      .poll(() => page.locator('.qw-alert--info').innerText())
      .toBe('Your password has been changed. Sign in with your new password.');

    // The old password no longer works; the new one does.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('.qw-alert--error').innerText()).toBe('Invalid email or password.');
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url('/app/personal/overview'));

    // The link works once.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(url('/'));
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await page.getByLabel('Repeat the new password').fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect.poll(() => page.locator('h1').innerText()).toBe('Reset link not valid');
    await expect
      .poll(() => page.locator('.qw-alert--error').innerText())
      .toBe('This reset link has already been used. Request a new one.');
    expect(errors).toEqual([]);
    await close();
  });
});

describe('session upkeep (spec §9)', () => {
  it('refreshes the access token silently when it is within 90 s of expiry, and retries a 401 once after refreshing', async () => {
    const email = uniqueEmail('clock');
    await signUpViaApi(stack, email);
    const { context, page } = await openPage(browser);
    await page.clock.install();
    // A refresh takes the cross-tab lock synchronously inside the timer tick that decides it, so
    // counting lock requests tells, the moment the clock stops, whether a tick decided to refresh.
    await page.addInitScript(() => {
      const decisions: number[] = [];
      (window as unknown as { refreshDecisions: number[] }).refreshDecisions = decisions;
      const request = navigator.locks.request.bind(navigator.locks) as (...args: unknown[]) => Promise<unknown>;
      navigator.locks.request = ((...args: unknown[]) => {
        decisions.push(Date.now());
        return request(...args);
      }) as LockManager['request'];
    });
    const decisions = () => page.evaluate(() => (window as unknown as { refreshDecisions: number[] }).refreshDecisions);
    const refreshes: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/api/auth/refresh')) refreshes.push(response.status());
    });
    await signInThroughPage(page, stack.publicUrl, email);
    await page.waitForURL(url('/app/personal/overview'));
    await page.locator('h1').waitFor();
    await page.clock.pauseAt(new Date(Date.now() + 1_000));
    const before = (await decisions()).length;
    const respondedBefore = refreshes.length;
    // 15-minute tokens: after 13 minutes nothing is due yet; by 14 min 30 s a 30 s tick has refreshed.
    await page.clock.runFor('13:00');
    expect((await decisions()).length).toBe(before);
    await page.clock.runFor('01:30');
    expect((await decisions()).length).toBe(before + 1);
    await expect.poll(() => refreshes.length).toBe(respondedBefore + 1);
    expect(refreshes.at(-1)).toBe(200);
    // The page's clock is now some 14 minutes ahead of the server's, as a skewed device clock would
    // be: the new token's life is counted from its arrival, so no tick refreshes it again.
    await page.clock.runFor('01:00');
    expect((await decisions()).length).toBe(before + 1);
    await page.clock.resume();

    // An access token the server refuses: one refresh, then the request is sent again and succeeds.
    let refused = false;
    await page.route('**/api/me', async (route) => {
      if (!refused) {
        refused = true;
        await route.fulfill({
          status: 401,
          contentType: 'application/json',
          body: JSON.stringify({
            error: { code: 'invalid_token', message: 'Your session has expired. Please sign in again.' },
          }),
        });
        return;
      }
      await route.continue();
    });
    await page.goto(url('/app/personal/account'));
    await expect.poll(() => page.getByLabel('Full name').isEnabled()).toBe(true);
    expect(refused).toBe(true);
    await context.close();
  });
});
