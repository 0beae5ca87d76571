import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import {
  newPage,
  personalCustomerViaApi,
  screenshot,
  signInThroughPage,
  startWebStack,
  uniqueEmail,
  type Stack,
} from './support/real-stack';

/**
 * Issue #15's receipts in Chromium against the real backend: the Billing table's Receipt link opens
 * the printable receipt (seller, buyer, number, plan, amount in USD, card), which fits a phone and
 * prints without the site's chrome; and a signed-out page load logs no failed refresh.
 */
let stack: Stack;
let browser: Browser;
const email = uniqueEmail('receipt');

beforeAll(async () => {
  stack = await startWebStack('webreceipt');
  browser = await launchBrowser();
  await personalCustomerViaApi(stack, email);
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the printable receipt', () => {
  it('opens from the Billing table and shows the receipt, printable and phone-sized', async () => {
    const { page, errors, close } = await newPage(browser, { width: 390 });
    try {
      await signInThroughPage(page, stack.publicUrl, email);
      await page.goto(`${stack.publicUrl}/app/personal/billing`);
      const link = page.getByRole('link', { name: /^Receipt QW-\d{6}$/ });
      await link.waitFor();
      const number = (await link.innerText()).trim();
      await link.click();
      await page.waitForURL((url) => url.pathname.startsWith('/billing/invoices/'));
      await expect.poll(() => page.locator('h1').first().innerText()).toBe('Receipt');
      await page.getByTestId('receipt-receipt-number').waitFor();
      expect(await page.getByTestId('receipt-receipt-number').innerText()).toBe(number);
      expect(await page.getByTestId('receipt-billed-to').innerText()).toBe(email);
      expect(await page.getByTestId('receipt-paid-with').innerText()).toBe('Visa ending in 4242');
      expect(await page.getByTestId('receipt-plan').innerText()).toBe('Quietwire Personal');
      expect(await page.getByTestId('receipt-total').innerText()).toBe('$7.99');
      await expect(page.title()).resolves.toMatch(/ — Quietwire$/);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'receipt');

      // Printed: the receipt alone, without the site's header, footer or buttons.
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('.focus__header').isVisible()).toBe(false);
      expect(await page.locator('.focus__footer').isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible()).toBe(false);
      expect(await page.getByTestId('receipt-total').isVisible()).toBe(true);
      await page.emulateMedia({ media: 'screen' });

      // Back goes to the Billing page it came from.
      await page.getByRole('link', { name: 'Back to Billing' }).click();
      await page.waitForURL((url) => url.pathname === '/app/personal/billing');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  for (const width of [1280, 390])
    it(`billing details set on Billing appear on the receipt (issue #26, ${width} px)`, async () => {
      const customer = uniqueEmail(`details${width}`);
      await personalCustomerViaApi(stack, customer);
      const { page, errors, close } = await newPage(browser, { width });
      try {
        await signInThroughPage(page, stack.publicUrl, customer);
        await page.goto(`${stack.publicUrl}/app/personal/billing`);
        const card = page.getByTestId('billing-details');
        await card.getByLabel('Company name').waitFor();
        await card.getByLabel('Company name').fill('Vera Design');
        await card.getByLabel('Address').fill('Hauptstraße 1\n10115 Berlin');
        await card.getByLabel('VAT ID').fill('12');
        await card.getByRole('button', { name: 'Save billing details' }).click();
        // A VAT ID without its country is refused at the field, saying what one looks like.
        await expect.poll(() => card.innerText()).toContain('A VAT ID starts with its country’s two letters');
        await card.getByLabel('VAT ID').fill('de 123 456 789');
        await card.getByRole('button', { name: 'Save billing details' }).click();
        await expect
          .poll(() => page.getByTestId('billing-details-result').innerText())
          .toBe('Saved. Every receipt shows these details, earlier ones too.');
        await expect.poll(() => card.getByLabel('VAT ID').inputValue()).toBe('DE123456789');
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, 'billing-details');

        await page
          .getByRole('link', { name: /^Receipt QW-\d{6}$/ })
          .first()
          .click();
        await page.waitForURL((url) => url.pathname.startsWith('/billing/invoices/'));
        await page.getByTestId('receipt-company').waitFor();
        expect(await page.getByTestId('receipt-company').innerText()).toBe('Vera Design');
        expect(await page.getByTestId('receipt-address').innerText()).toBe('Hauptstraße 1\n10115 Berlin');
        expect(await page.getByTestId('receipt-vat-id').innerText()).toBe('DE123456789');
        expect(await page.getByTestId('receipt-line').innerText()).toBe('Personal plan, first month');
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow).toBeLessThanOrEqual(0);
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, 'receipt-billing-details');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    });

  it('a signed-out page load logs no failed refresh: 204, no console error', async () => {
    const { page, errors, close } = await newPage(browser);
    const consoleErrors: string[] = [];
    const refreshes: number[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('response', (response) => {
      if (response.url().endsWith('/api/auth/refresh')) refreshes.push(response.status());
    });
    try {
      await page.goto(`${stack.publicUrl}/login`);
      await page.getByLabel('Email').waitFor();
      await page.waitForLoadState('networkidle');
      expect(refreshes).toEqual([204]);
      expect(consoleErrors).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
