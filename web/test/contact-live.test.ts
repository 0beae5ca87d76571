import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { startStack, type Stack } from '../../services/gateway/test/support/stack.ts';
import { launchBrowser, openPage } from './support/browser.ts';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack({ label: 'webcontact', listen: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('contact form against the real backend', () => {
  it('sends the message: the visitor sees the confirmation, it is stored, and support receives it by mail', async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`${stack.publicUrl}/contact`);
    const text = `Do you have servers in Singapore? Asked at ${new Date().toISOString()}.`;
    await page.getByLabel('Your email', { exact: true }).fill('visitor@example.com');
    await page.getByLabel('Message', { exact: true }).fill(text);
    const answer = page.waitForResponse(
      (response) => response.url().endsWith('/api/contact') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    expect((await answer).status()).toBe(201);
    // The page shows the answer on its next render, a moment after the response arrives.
    await page.getByRole('status').filter({ hasText: 'Thanks' }).waitFor();
    await expect.poll(() => page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
    const mail = await stack.smtp.waitFor((m) => (m.text ?? '').includes(text));
    expect((mail.to as { text: string }).text).toContain('support@quietwire.test');
    const stored = await sql<{
      n: number;
    }>`select count(*)::int as n from contact_messages where message = ${text}`.execute(stack.services.identity!.db);
    expect(stored.rows[0]!.n).toBe(1);
    await context.close();
  });

  it('after five messages from one address, says to wait and keeps what the visitor wrote', async () => {
    // One message came from this address in the test above; four more reach the limit.
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${stack.publicUrl}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'visitor@example.com', message: `Follow-up number ${i} here.` }),
      });
      expect(response.status).toBe(201);
    }
    const { context, page } = await openPage(browser);
    await page.goto(`${stack.publicUrl}/contact`);
    await page.getByLabel('Your email', { exact: true }).fill('visitor@example.com');
    await page.getByLabel('Message', { exact: true }).fill('One message too many, kept in the form.');
    const answer = page.waitForResponse((response) => response.url().endsWith('/api/contact'));
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    expect((await answer).status()).toBe(429);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(
      /You have sent several messages already\. Try again in/,
    );
    await expect(page.getByLabel('Message', { exact: true }).inputValue()).resolves.toBe(
      'One message too many, kept in the form.',
    );
    await context.close();
  });
});
