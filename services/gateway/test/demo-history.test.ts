import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { analyticsService } from '@qw/analytics';
import { callerTokenSigner } from '@qw/platform';
import { eventually, testCallerKeys } from '@qw/testkit';
import { demoStories, seedDemoHistory } from '../../../scripts/demo-history.ts';
import { type Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { deviceServices } from './support/products.ts';

/**
 * The demo history through the real services (identity's demo sign-up, billing's test checkout on
 * a test clock started in the past, plan changes, cancels, money back, comebacks), and the
 * Analytics page's figures checked against billing's own records of the same history: MRR against
 * the subscriptions billing entitles now, revenue and refunds against its invoices and refunds.
 */
let stack: Stack;
let admin: Client;

const figure = async (path: string) => {
  const answer = await admin.call('GET', `/api/admin/analytics/${path}`);
  if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.statusCode} ${answer.body}`);
  return answer.data;
};

beforeAll(async () => {
  stack = await startStack({
    label: 'demohistory',
    adminEmails: ['ops@quietwire.test'],
    identity: { DEMO_TOOLS: true },
    extra: (url, mail) => [...deviceServices(url, mail), analyticsService({ checkEveryMs: 200 })],
  });
  admin = await signUpConfirmed(stack, 'ops@quietwire.test', '198.51.100.7');
  await seedDemoHistory({
    bus: await stack.connectAdmin(),
    signCaller: callerTokenSigner(testCallerKeys.privateKey),
    customers: 24,
    browsers: 5,
    visitDays: 60,
    concurrency: 4,
  });
  // Everything billing and identity published has been counted.
  await eventually(
    async () => {
      // The relay deletes an outbox row once JetStream has the event.
      for (const service of ['billing', 'identity']) {
        const { rows } = await sql<{ n: string }>`select count(*) as n from outbox`.execute(
          stack.services[service]!.db,
        );
        if (Number(rows[0]?.n) > 0) return false;
      }
      const status = await figure('projection');
      return status.live?.pending_events === 0;
    },
    60_000,
    200,
  );
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

describe('the demo history', () => {
  it('tells stories with every kind of change', () => {
    const stories = demoStories(Date.now(), { customers: 160 });
    const kinds = new Set(stories.flatMap((story) => story.steps.map((step) => step.kind)));
    expect([...kinds].sort()).toEqual(['cancel', 'downgrade', 'upgrade']);
    expect(stories.some((story) => story.comeback)).toBe(true);
    expect(new Set(stories.map((story) => story.plan)).size).toBe(5);
    // Within the two years before now, oldest first.
    expect(stories[0]!.start).toBeGreaterThan(Date.now() - 730 * 86_400_000);
    expect(stories.at(-1)!.start).toBeLessThan(Date.now());
  });

  it("gives the MRR billing's own subscriptions add up to", async () => {
    const billing = stack.services.billing!.db;
    const { rows } = await sql<{ mrr: string; customers: string }>`
      select coalesce(sum(monthly_cents), 0) as mrr, count(distinct coalesce(org_id, user_id)) as customers
      from subscriptions where status in ('active', 'past_due') and user_id is not null`.execute(billing);
    const mrr = await figure('mrr');
    expect(mrr.mrr_total_cents).toBe(Number(rows[0]!.mrr));
    expect(mrr.paying_customers).toBe(Number(rows[0]!.customers));
    expect(mrr.mrr_total_cents).toBeGreaterThan(0);
  });

  it("gives the revenue and refunds of billing's invoices over two years", async () => {
    const billing = stack.services.billing!.db;
    const invoices = await sql<{ paid: string; n: string }>`
      select coalesce(sum(amount_cents), 0) as paid, count(*) as n from invoices
      where paid_at is not null and paid_at >= now() - interval '729 days'`.execute(billing);
    const refunds = await sql<{ refunded: string }>`
      select coalesce(sum(amount_cents), 0) as refunded from refunds where status = 'issued'`.execute(billing);
    const revenue = await figure('revenue-window?days=730');
    expect(revenue.amount_cents).toBe(Number(invoices.rows[0]!.paid));
    expect(revenue.invoices).toBe(Number(invoices.rows[0]!.n));
    expect(revenue.refunded_cents).toBe(Number(refunds.rows[0]!.refunded));
  });

  it('fills every chart of the page', async () => {
    const monthly = await figure('revenue-monthly?months=24');
    expect(monthly.rows.length).toBeGreaterThan(5);
    const moves = await figure('mrr-movements?months=24');
    expect(moves.rows.some((row: { new_cents: number }) => row.new_cents > 0)).toBe(true);
    const cohorts = await figure('cohorts');
    expect(cohorts.rows.length).toBeGreaterThan(0);
    const funnel = await figure('funnel');
    expect(funnel.has_visits).toBe(true);
    expect(funnel.rows.reduce((sum: number, row: { signups: number }) => sum + row.signups, 0)).toBeGreaterThan(0);
  });
});
