import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClockRpc, startClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { billingService } from '@qw/billing';
import { Client, confirmEmail, startStack, type Stack } from './support/stack.ts';
import { ownOrganization } from './support/organizations.ts';

/**
 * Buying and changing plans inside the app (issue #15), through the real gateway, billing and
 * identity: the preview of a plan change, resuming a plan set to end, and a checkout started by a
 * signed-in person (a plan again after a cancel; a Business plan with the organization's name).
 * Purchases start on 2025-04-01 (a 30-day April) so prorations are sums by hand.
 */
let stack: Stack;
const password = 'correct horse battery';
const april = '2025-04-01T00:00:00.000Z';

beforeAll(async () => {
  stack = await startStack({
    label: 'billinginapp',
    extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })],
  });
});
afterAll(async () => {
  await stack?.stop();
});

const billingDb = () => stack.services.billing!.db;
const admin = async () => new RpcClient(await stack.connectAdmin());

let addresses = 0;
function buyerAddress(): string {
  addresses++;
  return `198.51.100.${addresses}`;
}

type Purchase = { clockId: string; client: Client; subscriptionId: string };

/** Buys a plan on the public pricing page's path with a clock started in April, signs up, confirms the address and claims it. */
async function subscribe(planCode: string, email: string): Promise<Purchase> {
  const started = await new Client(stack.app, buyerAddress()).call('POST', '/api/checkout', {
    plan_code: planCode,
    quantity: 1,
  });
  expect(started.statusCode).toBe(200);
  const sessionId: string = started.data.session_id;
  const clockId: string = (await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`)).data
    .test_clock_id;
  await (await admin()).request(startClockRpc, { clock_id: clockId, at: april });
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
    email,
    card_number: '4242 4242 4242 4242',
  });
  expect(paid.data.redirect_url).toMatch(/\/post-checkout\?sid=/);
  const client = new Client(stack.app, buyerAddress());
  await client.call('POST', '/api/auth/signup', { email, password });
  await confirmEmail(stack, email, password, client);
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email });
  expect(claim.statusCode).toBe(200);
  return { clockId, client, subscriptionId: claim.data.subscription_id };
}

async function advance(clockId: string, days: number): Promise<void> {
  await (await admin()).request(advanceClockRpc, { clock_id: clockId, days });
}

const invoiceCount = async (subscriptionId: string) =>
  (await billingDb().selectFrom('invoices').select('id').where('subscription_id', '=', subscriptionId).execute())
    .length;

/** Starts an in-app checkout as `client`, pays it with the account's address and claims it where the page lands. */
async function buyInApp(client: Client, email: string, body: Record<string, unknown>) {
  const started = await client.call('POST', '/api/billing/checkout', body);
  expect(started.statusCode, started.body).toBe(200);
  expect(started.data.url).toMatch(/\/test-checkout\/cs_test_[0-9a-f]+$/);
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
    email,
    card_number: '4242 4242 4242 4242',
  });
  expect(paid.statusCode).toBe(200);
  // Back to the app (signed in), not to account creation.
  expect(paid.data.redirect_url).toMatch(new RegExp(`/checkout/complete\\?sid=${started.data.session_id}$`));
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: started.data.session_id, email });
  expect(claim.statusCode, claim.body).toBe(200);
  return claim.data as { subscription_id: string; account_type: string; org_id: string | null };
}

describe('the preview of a plan change', () => {
  it('says what an upgrade charges now and a downgrade next, and changes nothing', async () => {
    const purchase = await subscribe('personal', 'pria@example.com');
    await advance(purchase.clockId, 10);
    const before = await invoiceCount(purchase.subscriptionId);

    const up = await purchase.client.call(
      'GET',
      `/api/billing/change-plan/preview?subscription_id=${purchase.subscriptionId}&plan_code=gaming`,
    );
    expect(up.statusCode).toBe(200);
    expect(up.headers['cache-control']).toBe('no-store');
    // (1199 − 799) × 20 of 30 days = 266.67 → 267 cents, the same sum the change charges.
    expect(up.data).toMatchObject({
      plan_code: 'gaming',
      takes_effect: 'now',
      charge_now_cents: 267,
      next_charge_cents: 1199,
    });
    // The period ends a month after the payment, on the test clock (which ran a moment past April 1st).
    expect(Math.abs(new Date(up.data.next_charge_at).getTime() - Date.parse('2025-05-01T00:00:00Z'))).toBeLessThan(
      10_000,
    );
    expect(await invoiceCount(purchase.subscriptionId)).toBe(before);

    const changed = await purchase.client.call('POST', '/api/billing/change-plan', {
      subscription_id: purchase.subscriptionId,
      plan_code: 'gaming',
    });
    expect(changed.data.charged_cents).toBe(up.data.charge_now_cents);

    const down = await purchase.client.call(
      'GET',
      `/api/billing/change-plan/preview?subscription_id=${purchase.subscriptionId}&plan_code=personal`,
    );
    expect(down.data).toMatchObject({ takes_effect: 'period_end', charge_now_cents: 0, next_charge_cents: 799 });
    const overview = await purchase.client.call('GET', '/api/billing');
    expect(overview.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: null });
  });

  it('is refused as the change would be: unknown plan, another account type, someone else’s, signed out', async () => {
    const purchase = await subscribe('personal', 'pablo@example.com');
    const ask = (client: Client, plan: string) =>
      client.call(
        'GET',
        `/api/billing/change-plan/preview?subscription_id=${purchase.subscriptionId}&plan_code=${plan}`,
      );
    expect((await ask(purchase.client, 'platinum')).data.error.code).toBe('unknown_plan');
    expect((await ask(purchase.client, 'platinum')).statusCode).toBe(400);
    const business = await ask(purchase.client, 'business10');
    expect(business.statusCode).toBe(422);
    const stranger = new Client(stack.app, buyerAddress());
    await stranger.call('POST', '/api/auth/signup', { email: 'stranger-preview@example.com', password });
    expect((await ask(stranger, 'gaming')).statusCode).toBe(404);
    expect((await ask(new Client(stack.app), 'gaming')).statusCode).toBe(401);
    const bad = await purchase.client.call(
      'GET',
      '/api/billing/change-plan/preview?subscription_id=nope&plan_code=gaming',
    );
    expect(bad.statusCode).toBe(400);
  });
});

describe('resuming a plan set to end', () => {
  it('a cancel after the 7 days runs to the period end; Resume calls it off and the plan renews', async () => {
    const purchase = await subscribe('personal', 'rosa@example.com');
    await advance(purchase.clockId, 8);
    const canceled = await purchase.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: purchase.subscriptionId,
    });
    expect(canceled.data).toMatchObject({ cancel_at_period_end: true, refunded_cents: 0 });
    // A plan set to end changes plan only after it is resumed.
    const change = await purchase.client.call('POST', '/api/billing/change-plan', {
      subscription_id: purchase.subscriptionId,
      plan_code: 'gaming',
    });
    expect(change.statusCode).toBe(409);

    const stranger = new Client(stack.app, buyerAddress());
    await stranger.call('POST', '/api/auth/signup', { email: 'stranger-resume@example.com', password });
    const refused = await stranger.call('POST', '/api/billing/resume', { subscription_id: purchase.subscriptionId });
    expect(refused.statusCode).toBe(404);
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.cancel_at_period_end).toBe(true);

    const resumed = await purchase.client.call('POST', '/api/billing/resume', {
      subscription_id: purchase.subscriptionId,
    });
    expect(resumed.statusCode).toBe(200);
    expect(resumed.data.subscription).toMatchObject({
      status: 'active',
      cancel_at_period_end: false,
      plan: 'personal',
    });
    const again = await purchase.client.call('POST', '/api/billing/resume', {
      subscription_id: purchase.subscriptionId,
    });
    expect(again.statusCode).toBe(409);
    expect(again.data.error.code).toBe('conflict');

    // Past the period's end it renews instead of ending.
    const invoices = await invoiceCount(purchase.subscriptionId);
    await advance(purchase.clockId, 25);
    expect(await invoiceCount(purchase.subscriptionId)).toBe(invoices + 1);
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.status).toBe('active');
  });

  it('a plan that ended cannot be resumed (409) and stays ended', async () => {
    const purchase = await subscribe('personal', 'ruth@example.com');
    const canceled = await purchase.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: purchase.subscriptionId,
    });
    expect(canceled.data.money_back).toBe('refunded');
    const resumed = await purchase.client.call('POST', '/api/billing/resume', {
      subscription_id: purchase.subscriptionId,
    });
    expect(resumed.statusCode).toBe(409);
    expect(resumed.data.error.message).toBe(
      'This plan has ended and cannot be resumed. Choose a plan in Billing to subscribe again.',
    );
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.status).toBe('canceled');
  });
});

describe('limits on what calls the payment provider: 10 in 10 minutes per account', () => {
  const statuses = (answers: Array<{ statusCode: number }>) => answers.map((a) => a.statusCode).sort();

  it('Manage Billing: of 12 asked at once, 10 answer the portal and 2 wait; another account is not held up', async () => {
    const purchase = await subscribe('personal', 'mona@example.com');
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => purchase.client.call('GET', '/api/billing/manage?return=/app/personal/billing')),
    );
    expect(statuses(answers)).toEqual([...Array(10).fill(200), 429, 429]);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(refused.data.error.code).toBe('rate_limited');
    expect(refused.data.error.message).toMatch(
      /^The billing portal was opened too many times in a short time\. Please try again in \d+ minutes\.$/,
    );
    expect(refused.data.error.details.retry_after_seconds).toBeGreaterThan(500);
    const other = await subscribe('personal', 'nils@example.com');
    expect((await other.client.call('GET', '/api/billing/manage')).statusCode).toBe(200);
  });

  it('plan changes: of 12 asked at once, 10 are made and 2 wait; a preview is not counted', async () => {
    const purchase = await subscribe('personal', 'pete@example.com');
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        purchase.client.call('POST', '/api/billing/change-plan', {
          subscription_id: purchase.subscriptionId,
          plan_code: 'personal',
        }),
      ),
    );
    expect(statuses(answers)).toEqual([...Array(10).fill(200), 429, 429]);
    expect(answers.find((a) => a.statusCode === 429)!.data.error.message).toMatch(
      /^Too many plan changes were asked for in a short time\. Please try again in \d+ minutes\.$/,
    );
    const preview = await purchase.client.call(
      'GET',
      `/api/billing/change-plan/preview?subscription_id=${purchase.subscriptionId}&plan_code=gaming`,
    );
    expect(preview.statusCode).toBe(200);
    const upgrade = await purchase.client.call('POST', '/api/billing/change-plan', {
      subscription_id: purchase.subscriptionId,
      plan_code: 'gaming',
    });
    expect(upgrade.statusCode).toBe(429);
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.plan).toBe('personal');
  });

  it('resume: the eleventh within 10 minutes waits, and the plan stays set to end', async () => {
    const purchase = await subscribe('personal', 'remy@example.com');
    await advance(purchase.clockId, 8);
    const cancel = () =>
      purchase.client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: purchase.subscriptionId });
    const resume = () =>
      purchase.client.call('POST', '/api/billing/resume', { subscription_id: purchase.subscriptionId });
    for (let i = 0; i < 10; i++) {
      expect((await cancel()).statusCode).toBe(200);
      expect((await resume()).statusCode).toBe(200);
    }
    expect((await cancel()).statusCode).toBe(200);
    const refused = await resume();
    expect(refused.statusCode).toBe(429);
    expect(refused.data.error.message).toMatch(
      /^Too many resumes were asked for in a short time\. Please try again in \d+ minutes\.$/,
    );
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.cancel_at_period_end).toBe(true);
  });
});

describe('a checkout started in the app', () => {
  it('after a money-back cancel the person buys again as themselves and has the plan at once', async () => {
    const email = 'sam@example.com';
    const purchase = await subscribe('personal', email);
    // While the plan runs, buying another personal plan is refused: change plan instead.
    const twice = await purchase.client.call('POST', '/api/billing/checkout', { plan_code: 'gaming' });
    expect(twice.statusCode).toBe(409);
    expect(twice.data.error.message).toBe('You already have the Personal plan. Use Change plan in Billing instead.');

    await purchase.client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: purchase.subscriptionId });
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription.status).toBe('canceled');

    const claimed = await buyInApp(purchase.client, email, { plan_code: 'gaming' });
    expect(claimed).toMatchObject({ account_type: 'personal', org_id: null });
    const overview = await purchase.client.call('GET', '/api/billing');
    expect(overview.data.subscription).toMatchObject({ id: claimed.subscription_id, plan: 'gaming', status: 'active' });
  });

  it('a Business plan makes an organization with the chosen name, owned by the buyer', async () => {
    const email = 'bea@example.com';
    const purchase = await subscribe('personal', email);
    const noName = await purchase.client.call('POST', '/api/billing/checkout', {
      plan_code: 'business10',
      org_name: ' ',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.data.error).toMatchObject({
      code: 'validation_failed',
      message: 'Enter a name for the organization.',
    });

    const claimed = await buyInApp(purchase.client, email, { plan_code: 'business10', org_name: '  Bea  Studio ' });
    expect(claimed.account_type).toBe('business');
    const orgId = await ownOrganization(purchase.client);
    expect(orgId).toBe(claimed.org_id);
    const org = await eventually(async () => {
      const answer = await purchase.client.call('GET', `/api/orgs/${orgId}`);
      return answer.statusCode === 200 && answer.data.is_active !== false ? answer.data : undefined;
    });
    expect(org).toMatchObject({ name: 'Bea Studio', plan: 'business10' });
    // The personal plan runs on beside it.
    expect((await purchase.client.call('GET', '/api/billing')).data.subscription).toMatchObject({
      plan: 'personal',
      status: 'active',
    });
  });

  it('pays again for an organization whose plan ended: the same organization is Active again', async () => {
    const email = 'oren@example.com';
    const purchase = await subscribe('business10', email);
    const orgId = await ownOrganization(purchase.client);
    // While its plan runs, nothing more can be bought for it; a personal plan never can.
    const running = await purchase.client.call('POST', '/api/billing/checkout', {
      plan_code: 'business50',
      org_id: orgId,
    });
    expect(running.statusCode).toBe(409);
    const personal = await purchase.client.call('POST', '/api/billing/checkout', {
      plan_code: 'personal',
      org_id: orgId,
    });
    expect(personal.statusCode).toBe(400);
    const stranger = new Client(stack.app, buyerAddress());
    await stranger.call('POST', '/api/auth/signup', { email: 'stranger-org@example.com', password });
    const hidden = await stranger.call('POST', '/api/billing/checkout', { plan_code: 'business10', org_id: orgId });
    expect(hidden.statusCode).toBe(404);

    // The money-back cancel ends the plan: the organization is Suspended.
    await purchase.client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: purchase.subscriptionId });
    await eventually(async () => {
      const org = await purchase.client.call('GET', `/api/orgs/${orgId}`);
      return org.data.is_active === false || org.data.status === 'Suspended' ? true : undefined;
    });

    const claimed = await buyInApp(purchase.client, email, { plan_code: 'business50', org_id: orgId });
    expect(claimed).toMatchObject({ account_type: 'business', org_id: orgId });
    const org = await eventually(async () => {
      const answer = await purchase.client.call('GET', `/api/orgs/${orgId}`);
      return answer.data.is_active === true || answer.data.status === 'Active' ? answer.data : undefined;
    });
    expect(org.plan).toBe('business50');
    const organizations = (await purchase.client.call('GET', '/api/orgs')).data.organizations as unknown[];
    expect(organizations).toHaveLength(1);
  });

  it('is refused signed out, for an unknown plan, and for someone whose address the payment does not match', async () => {
    expect(
      (await new Client(stack.app).call('POST', '/api/billing/checkout', { plan_code: 'personal' })).statusCode,
    ).toBe(401);
    const client = new Client(stack.app, buyerAddress());
    await client.call('POST', '/api/auth/signup', { email: 'nina@example.com', password });
    const unknown = await client.call('POST', '/api/billing/checkout', { plan_code: 'platinum' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.data.error.code).toBe('unknown_plan');
    // Paid with another address: the claim refuses it, as for any checkout.
    const started = await client.call('POST', '/api/billing/checkout', { plan_code: 'personal' });
    await new Client(stack.app).call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
      email: 'someone-else@example.com',
      card_number: '4242 4242 4242 4242',
    });
    const claim = await client.call('POST', '/api/checkout/claim', {
      session_id: started.data.session_id,
      email: 'nina@example.com',
    });
    expect(claim.statusCode).toBe(409);
    expect(claim.data.error.code).toBe('email_mismatch');
  });
});
