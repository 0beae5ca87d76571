import { join } from 'node:path';
import { funnelVisitsNote, revenueWindows, windowLabel } from '@qw/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousAxeViolations } from './support/axe';
import { openPage, siteAndBrowserPerFile } from './support/browser';
import {
  type AnalyticsAnswers,
  demoAnswers,
  emptyAnswers,
  type FakeAnalyticsApi,
  type FakeSession,
  installFakeAnalyticsApi,
  installFakeSession,
} from './support/fake-analytics-api';
import { screenshotDir } from './support/paths';
import type { Site } from './support/site';
import { photograph } from './support/photos';

/**
 * The admin Analytics page against a fake of the analytics API (the contract's shapes, checked on
 * every answer): tiles in USD from cents, window pickers, every chart with its table, empty and
 * failed states, the projection line and the rebuild, axe, and both widths.
 */

let site: Site;
let browser: Browser;

siteAndBrowserPerFile((opened) => ({ site, browser } = opened));

type Opened = { page: Page; api: FakeAnalyticsApi; session: FakeSession; close: () => Promise<void> };

async function openAnalytics(
  answers: Partial<AnalyticsAnswers> = {},
  options: { width?: number; colorScheme?: 'light' | 'dark' } = {},
): Promise<Opened> {
  const { context, page } = await openPage(browser, options);
  const session = await installFakeSession(page, 'admin');
  const api = await installFakeAnalyticsApi(page, answers);
  await page.goto(`${site.url}/admin/analytics`);
  await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
  return { page, api, session, close: () => context.close() };
}

const tile = (page: Page, name: string) => page.getByRole('group', { name, exact: true });
const panel = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** The rows of a panel's table, shown with its "Show table" button; each row's cells as text. */
async function tableRows(region: Locator): Promise<string[][]> {
  await region.getByRole('button', { name: 'Show table' }).click();
  const toggle = region.getByRole('button', { name: 'Hide table' });
  await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
  const table = region.locator('table').first();
  await table.waitFor();
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('th, td'), (cell) => (cell.textContent ?? '').trim())),
    );
}

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 1280;
  await photograph(page, join(screenshotDir, `${name}-${width}.png`), { fullPage: true });
}

const chartPanels = [
  'Daily revenue',
  'New subscriptions and cancels',
  'Funnel',
  'MRR movements',
  'Revenue by plan',
  'Monthly churn',
  'Cohort retention',
] as const;

async function everyChartDrawn(page: Page): Promise<void> {
  for (const name of chartPanels) await panel(page, name).locator('canvas').first().waitFor();
}

describe('admin Analytics: tiles', () => {
  it('shows the figures in USD from cents, and a window change asks again with ?days=N', async () => {
    const { page, api, session, close } = await openAnalytics();
    const revenue = tile(page, 'Revenue');
    await expect.poll(() => revenue.innerText()).toContain('$1,234.56');
    await expect(revenue.innerText()).resolves.toMatch(/Refunds \$15\.99\s+Net \$1,218\.57/);
    await expect.poll(() => tile(page, 'New subscriptions').innerText()).toMatch(/\b41\b/);
    await expect.poll(() => tile(page, 'Cancels').innerText()).toMatch(/\b12\b/);
    await expect.poll(() => tile(page, 'MRR').innerText()).toContain('$4,567.89');
    await expect(tile(page, 'MRR').innerText()).resolves.toContain('240 paying customers');
    await expect.poll(() => tile(page, 'ARR').innerText()).toContain('$54,814.68');
    await expect.poll(() => tile(page, 'ARPU').innerText()).toContain('$19.04');
    await expect(tile(page, 'ARPU').innerText()).resolves.toContain('30 days');
    // Issue #26: every tile names its window; MRR and ARR are the subscriptions running now.
    for (const name of ['MRR', 'ARR'])
      await expect(tile(page, name).locator('.analytics-window-fixed').innerText()).resolves.toBe('Now');

    // The spec's windows, named by windowLabel, 30 days to begin with.
    const picker = page.getByRole('combobox', { name: 'Revenue window' });
    await expect(picker.locator('option').allInnerTexts()).resolves.toEqual(revenueWindows.map(windowLabel));
    await expect(picker.inputValue()).resolves.toBe('30');
    await expect(
      page.getByRole('combobox', { name: 'New subscriptions window' }).locator('option').allInnerTexts(),
    ).resolves.toEqual(['Today', '7 days', '30 days', '60 days']);
    await expect(
      page.getByRole('combobox', { name: 'Cancels window' }).locator('option').allInnerTexts(),
    ).resolves.toEqual(['7 days', '30 days']);

    await picker.selectOption('7');
    await expect.poll(() => revenue.innerText()).toContain('$456.78');
    await expect(revenue.innerText()).resolves.toMatch(/Refunds \$7\.99\s+Net \$448\.79/);
    await picker.selectOption('90');
    await expect.poll(() => revenue.innerText()).toContain('$3,711.11');
    expect(api.requestsTo('revenue-window').map((request) => request.query.days)).toEqual(['30', '7', '90']);

    await page.getByRole('combobox', { name: 'New subscriptions window' }).selectOption('60');
    await expect.poll(() => tile(page, 'New subscriptions').innerText()).toMatch(/\b77\b/);
    await page.getByRole('combobox', { name: 'Cancels window' }).selectOption('7');
    await expect.poll(() => tile(page, 'Cancels').innerText()).toMatch(/\b3\b/);
    expect(api.requestsTo('cancels-window').map((request) => request.query.days)).toEqual(['30', '7']);
    expect(api.requestsTo('arpu').map((request) => request.query.days)).toEqual(['30']);

    expect(api.problems).toEqual([]);
    expect(session.unexpected).toEqual([]);
    await close();
  });
});

describe('admin Analytics: charts', () => {
  it('draws every chart, each with a table of the same numbers; the funnel says where visits come from', async () => {
    const { page, api, session, close } = await openAnalytics();
    await everyChartDrawn(page);
    const demo = demoAnswers();

    const daily = await tableRows(panel(page, 'Daily revenue'));
    const dailyRows = demo['revenue-daily'](60).rows;
    expect(daily).toHaveLength(60);
    expect(daily[0]).toEqual([dailyRows[0]!.day, '$19.99', '$0.00', '$19.99']);
    const refundDay = dailyRows.findIndex((row) => row.refunded_cents > 0);
    expect(daily[refundDay]?.[2]).toBe('$7.99');

    const subscriptions = await tableRows(panel(page, 'New subscriptions and cancels'));
    expect(subscriptions).toHaveLength(60);
    expect(subscriptions[0]).toEqual([dailyRows[0]!.day, '1', '1']);

    const funnel = panel(page, 'Funnel');
    await expect(funnel.getByText(funnelVisitsNote, { exact: true }).isVisible()).resolves.toBe(true);
    const funnelRows = await tableRows(funnel);
    expect(funnelRows).toHaveLength(60);
    // No visits column while the web traffic table is empty: day, sign-ups, first payments.
    expect(funnelRows[0]).toEqual([dailyRows[0]!.day, '2', '0']);

    const movements = await tableRows(panel(page, 'MRR movements'));
    expect(movements).toHaveLength(12);
    expect(movements[0]).toEqual([
      '2025-12',
      '$200.00',
      '$50.00',
      '$11.99',
      '-$24.00',
      '-$80.00',
      '$157.99',
      '$2,157.99',
    ]);

    const byPlan = await tableRows(panel(page, 'Revenue by plan'));
    expect(byPlan).toHaveLength(12);
    const planHeaders = await panel(page, 'Revenue by plan').locator('thead th').allInnerTexts();
    expect(planHeaders.map((text) => text.replace(/[↕▲▼]/g, '').trim())).toEqual([
      'Month',
      'Personal',
      'Gaming',
      'Business 10',
      'Business 50',
      'Gross',
      'Refunds',
    ]);
    // 2025-12: 40 Personal and 25 Gaming payments, no business plan yet, one Personal refund.
    expect(byPlan[0]).toEqual(['2025-12', '$319.60', '$299.75', '$0.00', '$0.00', '$619.35', '$7.99']);

    const churn = await tableRows(panel(page, 'Monthly churn'));
    expect(churn).toHaveLength(12);
    expect(churn[0]?.[3]).toBe('—');
    expect(churn[1]?.slice(0, 4)).toEqual(['2026-01', '110', '6', '5.5%']);

    const cohorts = await tableRows(panel(page, 'Cohort retention'));
    expect(cohorts).toHaveLength(12);
    expect(cohorts[0]?.slice(0, 5)).toEqual(['2025-12', '20', '100.0%', '90.0%', '81.0%']);
    // The newest cohort has only begun its month +0.
    expect(cohorts[11]?.slice(2, 4)).toEqual(['100.0%', '—']);

    expect(api.requestsTo('revenue-daily')[0]?.query).toEqual({ days: '60' });
    expect(api.requestsTo('revenue-monthly')[0]?.query).toEqual({ months: '12' });
    expect(api.requestsTo('cohorts')[0]?.query).toEqual({ months: '12' });
    expect(api.problems).toEqual([]);
    expect(session.unexpected).toEqual([]);
    await close();
  }, 60_000);

  it('says plainly when there is nothing yet: no chart, the reason, and the funnel note', async () => {
    const { page, api, close } = await openAnalytics(emptyAnswers());
    const expected: Record<(typeof chartPanels)[number], string> = {
      'Daily revenue': 'No revenue in the last 60 days.',
      'New subscriptions and cancels': 'No subscriptions started or ended in the last 60 days.',
      Funnel: 'No sign-ups or first payments in the last 60 days.',
      'MRR movements': 'No MRR in the last 12 months.',
      'Revenue by plan': 'No revenue in the last 12 months.',
      'Monthly churn': 'No churn to show: there were no paying customers at the start of any of the last 12 months.',
      'Cohort retention': 'No cohorts yet: nobody started paying in the last 12 months.',
    };
    for (const [name, text] of Object.entries(expected)) {
      const region = panel(page, name);
      await region.getByText(text, { exact: true }).waitFor();
      await expect(region.locator('canvas').count()).resolves.toBe(0);
      await expect(region.getByRole('button', { name: 'Show table' }).count()).resolves.toBe(0);
    }
    await expect(panel(page, 'Funnel').getByText(funnelVisitsNote).isVisible()).resolves.toBe(true);
    await expect.poll(() => tile(page, 'Revenue').innerText()).toMatch(/\$0\.00\s+Refunds \$0\.00\s+Net \$0\.00/);
    await expect.poll(() => tile(page, 'ARPU').innerText()).toContain('No paying customers in this window.');
    await expect(page.getByText(/will appear here/).count()).resolves.toBe(0);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'admin-analytics-empty');
    expect(api.problems).toEqual([]);
    await close();
  });

  it('shows the visits line and the most visited pages once there are visits, without the note', async () => {
    const demo = demoAnswers();
    const { page, close } = await openAnalytics({
      funnel: (days) => {
        const funnel = demo.funnel(days);
        return {
          ...funnel,
          has_visits: true,
          rows: funnel.rows.map((row, index) => ({ ...row, visits: 100 + index })),
          top_paths: [
            { path: '/pricing', views: 3_100 },
            { path: '/', views: 2_400 },
          ],
        };
      },
    });
    const funnel = panel(page, 'Funnel');
    await funnel.locator('canvas').first().waitFor();
    await expect(funnel.getByText(funnelVisitsNote).count()).resolves.toBe(0);
    await expect(
      funnel.getByText(/In 60 days: 7,770 visits, 240 sign-ups, 60 first payments\./).isVisible(),
    ).resolves.toBe(true);
    const pages = funnel.getByRole('table', { name: 'Most visited public pages' });
    await expect(pages.locator('tbody tr').allInnerTexts()).resolves.toEqual(['/pricing\t3,100', '/\t2,400']);
    const rows = await tableRows(funnel);
    expect(rows[0]).toEqual(['2026-09-25', '100', '2', '0']);
    await close();
  });

  it('shows a placeholder while the figures are on their way', async () => {
    const { context, page } = await openPage(browser);
    await installFakeSession(page, 'admin');
    const api = await installFakeAnalyticsApi(page);
    const releaseDaily = api.hold('revenue-daily');
    const releaseRevenue = api.hold('revenue-window');
    await page.goto(`${site.url}/admin/analytics`);
    const daily = panel(page, 'Daily revenue');
    await daily.locator('.qw-skeleton').waitFor();
    await expect(daily.getAttribute('aria-busy')).resolves.toBe('true');
    await expect(daily.locator('canvas').count()).resolves.toBe(0);
    await tile(page, 'Revenue').locator('.qw-skeleton').waitFor();
    releaseDaily();
    releaseRevenue();
    await daily.locator('canvas').first().waitFor();
    await expect(daily.locator('.qw-skeleton').count()).resolves.toBe(0);
    await expect.poll(() => tile(page, 'Revenue').innerText()).toContain('$1,234.56');
    await context.close();
  });

  it("shows the server's message and a retry when figures fail, and recovers", async () => {
    const { context, page } = await openPage(browser);
    await installFakeSession(page, 'admin');
    const api = await installFakeAnalyticsApi(page);
    api.fail('revenue-daily', {
      status: 403,
      code: 'forbidden',
      message: 'Only platform admins may read the figures.',
    });
    api.fail('mrr', { status: 503, code: 'unavailable', message: 'Analytics is not answering. Try again shortly.' });
    await page.goto(`${site.url}/admin/analytics`);

    const daily = panel(page, 'Daily revenue');
    await daily.getByRole('alert').getByText('Only platform admins may read the figures.').waitFor();
    api.recover('revenue-daily');
    await daily.getByRole('button', { name: 'Retry' }).click();
    await daily.locator('canvas').first().waitFor();
    await expect(daily.getByRole('alert').count()).resolves.toBe(0);

    // A server error is asked again twice by itself before the tile gives up.
    const mrr = tile(page, 'MRR');
    await mrr.getByText('Analytics is not answering. Try again shortly.').waitFor({ timeout: 15_000 });
    await expect(tile(page, 'ARR').innerText()).resolves.toContain('Analytics is not answering.');
    expect(api.requestsTo('mrr')).toHaveLength(3);
    api.recover('mrr');
    await mrr.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => mrr.innerText()).toContain('$4,567.89');
    await context.close();
  }, 40_000);
});

describe('admin Analytics: projection and rebuild', () => {
  it('tells which projection the figures come from, and rebuilds after one confirmation', async () => {
    const { page, api, close } = await openAnalytics();
    const status = page.getByText(/^Figures as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    await status.waitFor();
    await expect(status.innerText()).resolves.toContain('projection 2 (definition 1), live since 2026-11-20 08:04 UTC');

    const rebuild = page.getByRole('button', { name: 'Rebuild figures' });
    await rebuild.click();
    const dialog = page.getByRole('dialog', { name: 'Rebuild figures?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(api.requestsTo('rebuild')).toEqual([]);

    await rebuild.click();
    // The running rebuild is what GET projection answers from now on.
    api.answer('projection', demoAnswers().rebuild);
    await dialog.getByRole('button', { name: 'Rebuild figures' }).click();
    await page.getByText('Rebuilding from history: 4,210 events to go').waitFor();
    await page.locator('.qw-toast', { hasText: 'Rebuild started' }).waitFor();
    expect(api.requestsTo('rebuild').map((request) => request.method)).toEqual(['POST']);
    await expect(rebuild.isDisabled()).resolves.toBe(true);

    // Caught up: generation 3 is live, and the page reads every figure again.
    const dailyReads = api.requestsTo('revenue-daily').length;
    api.answer('projection', () => ({
      live: {
        generation: 3,
        definition: 1,
        status: 'live',
        started_at: '2026-11-23T10:00:00.000Z',
        live_since: '2026-11-23T10:06:00.000Z',
        pending_events: 0,
      },
      building: null,
    }));
    await expect
      .poll(() => status.innerText(), { timeout: 15_000 })
      .toContain('projection 3 (definition 1), live since 2026-11-23 10:06 UTC');
    await expect(page.getByText(/Rebuilding from history/).count()).resolves.toBe(0);
    await expect.poll(() => api.requestsTo('revenue-daily').length).toBeGreaterThan(dailyReads);
    await expect(rebuild.isEnabled()).resolves.toBe(true);
    expect(api.problems).toEqual([]);
    await close();
  }, 40_000);

  it('keeps the dialog open with the server’s reason when a rebuild is refused', async () => {
    const { page, api, close } = await openAnalytics();
    api.fail('rebuild', { status: 409, code: 'conflict', message: 'A rebuild is already under way.' });
    await page.getByRole('button', { name: 'Rebuild figures' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rebuild figures?' });
    await dialog.getByRole('button', { name: 'Rebuild figures' }).click();
    await dialog.getByText('A rebuild is already under way.').waitFor();
    await expect(dialog.isVisible()).resolves.toBe(true);
    await close();
  });
});

describe('admin Analytics: layout and accessibility', () => {
  for (const width of [1280, 390]) {
    it(`fits ${width} px without sideways scrolling and passes axe`, async () => {
      const { page, close } = await openAnalytics({}, { width });
      await everyChartDrawn(page);
      await page.waitForLoadState('networkidle');
      await expect(sidewaysOverflow(page)).resolves.toBeLessThanOrEqual(0);
      await expect(page.title()).resolves.toBe('Admin — Analytics — Quietwire');
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      // Tiles wrap, charts take the width; on a phone the heatmap scrolls in its own labelled box.
      const heatmapBox = page.getByRole('region', { name: /Cohort retention heatmap: a row per cohort/ });
      await expect(heatmapBox.isVisible()).resolves.toBe(true);
      const scrolls = await heatmapBox.evaluate((box) => box.scrollWidth > box.clientWidth);
      expect(scrolls).toBe(width < 760);
      if (width < 760) await expect(page.getByText(/scroll sideways for months/).isVisible()).resolves.toBe(true);
      // Every legend names every series whole, on as many lines as it needs: never paged, never cut.
      const mrr = panel(page, 'MRR movements');
      const legend = mrr.getByRole('list', { name: /^Series of / });
      await expect(legend.getByRole('button').allInnerTexts()).resolves.toEqual([
        'New',
        'Expansion',
        'Reactivation',
        'Contraction',
        'Churn',
        'Net',
        'MRR',
      ]);
      const panelBox = (await mrr.boundingBox())!;
      for (const button of await legend.getByRole('button').all()) {
        const box = (await button.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(panelBox.x);
        expect(box.x + box.width).toBeLessThanOrEqual(panelBox.x + panelBox.width);
      }
      await screenshot(page, 'admin-analytics');
      // A legend button hides its series and shows it again.
      const churn = legend.getByRole('button', { name: 'Churn' });
      await churn.click();
      await expect(churn.getAttribute('aria-pressed')).resolves.toBe('false');
      await churn.click();
      await expect(churn.getAttribute('aria-pressed')).resolves.toBe('true');
      // The tables open within the page width too (they scroll inside their own box).
      await panel(page, 'MRR movements').getByRole('button', { name: 'Show table' }).click();
      await expect(sidewaysOverflow(page)).resolves.toBeLessThanOrEqual(0);
      await expect(seriousAxeViolations(page)).resolves.toEqual([]);
      await close();
    }, 60_000);
  }

  it('passes axe in the dark colour scheme', async () => {
    const { page, close } = await openAnalytics({}, { width: 390, colorScheme: 'dark' });
    await everyChartDrawn(page);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'admin-analytics-dark');
    await close();
  }, 60_000);
});
