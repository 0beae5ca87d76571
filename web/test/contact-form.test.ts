import type { Browser, Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import type { Site } from './support/site';

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

type Answer = { status: number; json: unknown } | 'network-error';

/** /contact with POST /api/contact answered by the test, or left alone when `answer` is omitted. */
async function contactPage(answer?: Answer) {
  const { context, page } = await openPage(browser);
  const sent: unknown[] = [];
  if (answer) {
    await page.route('**/api/contact', async (route: Route) => {
      sent.push(route.request().postDataJSON());
      if (answer === 'network-error') await route.abort('connectionreset');
      else
        await route.fulfill({
          status: answer.status,
          contentType: 'application/json',
          body: JSON.stringify(answer.json),
        });
    });
  }
  await page.goto(`${site.url}/contact`);
  await page.locator('h1').waitFor();
  return { context, page, sent };
}

const email = (page: Page) => page.getByLabel('Your email', { exact: true });
const message = (page: Page) => page.getByLabel('Message', { exact: true });
const send = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });

async function errorFor(page: Page, label: 'Your email' | 'Message'): Promise<string | null> {
  const field = page.getByLabel(label, { exact: true });
  if ((await field.getAttribute('aria-invalid')) !== 'true') return null;
  const ids = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const errorId = ids.find((id) => id.endsWith('-error'));
  return errorId ? page.locator(`[id="${errorId}"]`).innerText() : null;
}

const goodMessage = 'My Gaming plan shows a device as Idle although it is connected. Could you take a look?';

describe('contact form', () => {
  it('shows inline errors for an empty form, a bad email and a short message, and sends nothing', async () => {
    const { context, page, sent } = await contactPage({ status: 201, json: { id: 'never' } });
    await send(page).click();
    await expect.poll(() => errorFor(page, 'Your email')).toBe('Enter your email address so we can answer you.');
    await expect.poll(() => errorFor(page, 'Message')).toBe('Write your message (at least 10 characters).');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('contact-email');

    await email(page).fill('not-an-email');
    await message(page).fill('Too short');
    await send(page).click();
    await expect.poll(() => errorFor(page, 'Your email')).toBe('Enter a valid email address, like name@example.com.');
    await expect.poll(() => errorFor(page, 'Message')).toBe('Your message is too short. Write at least 10 characters.');

    await email(page).fill('visitor@example.com');
    await message(page).fill('x'.repeat(5001));
    await send(page).click();
    await expect.poll(() => errorFor(page, 'Your email')).toBeNull();
    await expect
      .poll(() => errorFor(page, 'Message'))
      .toBe('Your message is too long. Keep it to 5,000 characters (it has 5,001).');
    expect(sent).toEqual([]);
    await context.close();
  });

  it('keeps everything the visitor wrote and asks to try again when the server answers 500', async () => {
    const { context, page, sent } = await contactPage({
      status: 500,
      json: { error: { code: 'internal', message: 'Internal error' } },
    });
    await email(page).fill('visitor@example.com');
    await message(page).fill(goodMessage);
    await send(page).click();
    const alert = page.getByRole('alert');
    await expect(alert.innerText()).resolves.toContain('We couldn’t send your message.');
    await expect(alert.innerText()).resolves.toContain('please try again');
    await expect(email(page).inputValue()).resolves.toBe('visitor@example.com');
    await expect(message(page).inputValue()).resolves.toBe(goodMessage);
    await expect(send(page).isEnabled()).resolves.toBe(true);
    expect(sent).toEqual([{ email: 'visitor@example.com', message: goodMessage }]);
    await context.close();
  });

  it('keeps the text and asks to try again when the network fails', async () => {
    const { context, page } = await contactPage('network-error');
    await email(page).fill('visitor@example.com');
    await message(page).fill(goodMessage);
    await send(page).click();
    await expect(page.getByRole('alert').innerText()).resolves.toContain('We couldn’t send your message.');
    await expect(message(page).inputValue()).resolves.toBe(goodMessage);
    await context.close();
  });

  it('shows a 400 validation_failed message at the field it names', async () => {
    const { context, page } = await contactPage({
      status: 400,
      json: {
        error: {
          code: 'validation_failed',
          message: 'This address cannot receive email.',
          details: { field: 'email' },
        },
      },
    });
    await email(page).fill('visitor@example.invalid');
    await message(page).fill(goodMessage);
    await send(page).click();
    await expect.poll(() => errorFor(page, 'Your email')).toBe('This address cannot receive email.');
    await expect.poll(() => errorFor(page, 'Message')).toBeNull();
    await context.close();
  });

  it('shows the rate-limit message on 429', async () => {
    const { context, page } = await contactPage({
      status: 429,
      json: { error: { code: 'rate_limited', message: 'Too many messages. Try again in a few minutes.' } },
    });
    await email(page).fill('visitor@example.com');
    await message(page).fill(goodMessage);
    await send(page).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('Too many messages. Try again in a few minutes.');
    await expect(message(page).inputValue()).resolves.toBe(goodMessage);
    await context.close();
  });

  it('keeps the draft across a reload', async () => {
    const { context, page } = await contactPage();
    await email(page).fill('draft@example.com');
    await message(page).fill('Half-written question about routers');
    await page.reload();
    await page.locator('h1').waitFor();
    await expect(email(page).inputValue()).resolves.toBe('draft@example.com');
    await expect(message(page).inputValue()).resolves.toBe('Half-written question about routers');
    await context.close();
  });

  it('on 201 confirms, clears the form and forgets the draft', async () => {
    const { context, page, sent } = await contactPage({ status: 201, json: { id: 'msg_1' } });
    await email(page).fill('visitor@example.com');
    await message(page).fill(goodMessage);
    await send(page).click();
    await expect(page.getByRole('status').filter({ hasText: 'Thanks' }).innerText()).resolves.toBe(
      'Thanks — your message is on its way. We answer by email, usually within a day.',
    );
    await expect(email(page).inputValue()).resolves.toBe('');
    await expect(message(page).inputValue()).resolves.toBe('');
    await page.reload();
    await page.locator('h1').waitFor();
    await expect(message(page).inputValue()).resolves.toBe('');
    expect(sent).toHaveLength(1);
    await context.close();
  });
});
