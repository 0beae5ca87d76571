import { funnelVisitsNote } from '@qw/contracts';
import { callerTokenSigner } from '@qw/platform';
import { eventually, testCallerKeys } from '@qw/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoHistory } from '../../scripts/demo-history.ts';
import { launchBrowser } from './support/browser';
import {
  adminEmail,
  apiCall,
  newPage,
  screenshot,
  signInThroughPage,
  type Stack,
  startWebStack,
  verifiedAccountViaApi,
} from './support/real-stack';

/**
 * The admin opens /admin/analytics on the demo history made through the real services (identity,
 * billing on its test clock, the gateway's visit counts, the analytics projection): every tile
 * shows a figure, every chart is drawn, and the tiles agree with the API.
 */
let stack: Stack;
let browser: Browser;
let token: string;

const chartPanels = [
  'Daily revenue',
  'New subscriptions and cancels',
  'Funnel',
  'MRR movements',
  'Revenue by plan',
  'Monthly churn',
  'Cohort retention',
];

beforeAll(async () => {
  stack = await startWebStack('analyticslive', { analytics: true, demoTools: true });
  token = await verifiedAccountViaApi(stack, adminEmail);
  await seedDemoHistory({
    bus: await stack.connectAdmin(),
    signCaller: callerTokenSigner(testCallerKeys.privateKey),
    customers: 40,
    browsers: 10,
    visitDays: 60,
    concurrency: 4,
  });
  await eventually(
    async () => {
      const status = await apiCall(stack, 'GET', '/api/admin/analytics/projection', undefined, token);
      const mrr = await apiCall(stack, 'GET', '/api/admin/analytics/mrr', undefined, token);
      return status.data.live?.pending_events === 0 && mrr.data.mrr_total_cents > 0;
    },
    60_000,
    250,
  );
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

async function openAsAdmin(width: number): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const opened = await newPage(browser, { width });
  await signInThroughPage(opened.page, stack.publicUrl, adminEmail);
  await opened.page.goto(`${stack.publicUrl}/admin/analytics`);
  await opened.page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
  return opened;
}

describe('admin Analytics on the demo history', () => {
  it('shows non-empty tiles that agree with the API, and draws every chart', async () => {
    const { page, errors, close } = await openAsAdmin(1280);
    try {
      const mrr = (await apiCall(stack, 'GET', '/api/admin/analytics/mrr', undefined, token)).data;
      const tile = (name: string) => page.getByRole('group', { name, exact: true });
      await expect.poll(() => tile('MRR').innerText(), { timeout: 15_000 }).toContain(usd(mrr.mrr_total_cents));
      await expect.poll(() => tile('ARR').innerText()).toContain(usd(mrr.arr_total_cents));
      const revenue = (await apiCall(stack, 'GET', '/api/admin/analytics/revenue-window?days=730', undefined, token))
        .data;
      await tile('Revenue').getByRole('combobox').selectOption('730');
      await expect.poll(() => tile('Revenue').innerText(), { timeout: 15_000 }).toContain(usd(revenue.amount_cents));
      for (const name of chartPanels) {
        const region = page.getByRole('region', { name, exact: true });
        await region.locator('canvas').first().waitFor({ timeout: 15_000 });
      }
      // Visits were counted, so the funnel shows them rather than the spec's note.
      expect(await page.getByText(funnelVisitsNote).count()).toBe(0);
      await screenshot(page, 'admin-analytics-demo');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('fits a phone: no page-wide sideways scroll at 390 px', async () => {
    const { page, close } = await openAsAdmin(390);
    try {
      await page.getByRole('region', { name: 'Daily revenue', exact: true }).locator('canvas').first().waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'admin-analytics-demo');
    } finally {
      await close();
    }
  });
});
