import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { advanceClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { billingService } from '@qw/billing';
import { Client, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'billing', extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })] });
});
afterAll(async () => {
  await stack?.stop();
});

const billingDb = () => stack.services.billing!.db;

async function buy(planCode: string, email: string): Promise<string> {
  const started = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: planCode, plan_name: planCode, account_type: 'personal', quantity: 1 });
  expect(started.statusCode).toBe(200);
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, { email, card_number: '4242 4242 4242 4242' });
  expect(paid.statusCode).toBe(200);
  return started.data.session_id;
}

async function signUpAndClaim(sessionId: string, email: string) {
  const client = new Client(stack.app);
  await client.call('POST', '/api/auth/signup', { email, password });
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email, plan_code: 'personal', account_type: 'personal', quantity: 1 });
  return { client, claim };
}

async function advanceDays(days: number) {
  return new RpcClient(stack.bus).request(advanceClockRpc, { days });
}

describe('checkout with the local test provider', () => {
  it('refuses an unknown plan code with 400 and writes nothing', async () => {
    const response = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: 'platinum', quantity: 1 });
    expect(response.statusCode).toBe(400);
    expect(response.data.error).toMatchObject({ code: 'unknown_plan', message: 'Unknown plan: platinum.' });
    const rows = await sql<{ n: number }>`select count(*)::int as n from checkout_sessions`.execute(billingDb());
    expect(rows.rows[0]!.n).toBe(0);
  });

  it('goes from checkout to the test page to post-checkout, then to the account that claims it, with its invoice', async () => {
    const started = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: 'personal', plan_name: 'Personal', account_type: 'personal', quantity: 1 });
    expect(started.data.url).toBe(`http://localhost:8080/test-checkout/${started.data.session_id}`);
    const sessionId: string = started.data.session_id;

    const early = await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${sessionId}`);
    expect(early.statusCode).toBe(409);

    const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
    expect(page.data).toMatchObject({ plan_name: 'Personal', amount_cents: 799, currency: 'USD', status: 'open' });

    const typo = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, { email: 'pat@example.com', card_number: '4242 4242 4242 4241' });
    expect(typo.statusCode).toBe(400);
    const declined = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, { email: 'pat@example.com', card_number: '4000 0000 0000 0002' });
    expect(declined.statusCode).toBe(402);
    expect(declined.data.error.code).toBe('payment_declined');
    const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, { email: 'Pat@Example.com', card_number: '4242424242424242' });
    expect(paid.data.redirect_url).toBe(`http://localhost:8080/post-checkout?sid=${sessionId}`);

    const verified = await new Client(stack.app).call('GET', `/api/checkout/verify?session_id=${sessionId}`);
    expect(verified.data).toEqual({ email: 'pat@example.com', plan_code: 'personal', account_type: 'personal', quantity: 1 });

    const { client, claim } = await signUpAndClaim(sessionId, 'pat@example.com');
    expect(claim.statusCode).toBe(200);
    expect(claim.data).toMatchObject({ account_type: 'personal', org_id: null });
    const again = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'pat@example.com' });
    expect(again.data).toEqual(claim.data);

    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription).toMatchObject({ plan: 'personal', status: 'active', cancel_at_period_end: false });
    expect(billing.data.invoices).toHaveLength(1);
    expect(billing.data.invoices[0]).toMatchObject({ amount_cents: 799, currency: 'USD', status: 'paid' });
    const subs = await sql<{ n: number }>`select count(*)::int as n from subscriptions`.execute(billingDb());
    expect(subs.rows[0]!.n).toBe(1);
  });

  it('refuses a claim with another email (409) and by another account once claimed', async () => {
    const sessionId = await buy('gaming', 'quin@example.com');
    const other = new Client(stack.app);
    await other.call('POST', '/api/auth/signup', { email: 'rex@example.com', password });
    const wrongEmail = await other.call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'rex@example.com' });
    expect(wrongEmail.statusCode).toBe(409);
    expect(wrongEmail.data.error.code).toBe('email_mismatch');
    const pretending = await other.call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'quin@example.com' });
    expect(pretending.statusCode).toBe(409);
    const { claim } = await signUpAndClaim(sessionId, 'quin@example.com');
    expect(claim.statusCode).toBe(200);
    const unclaimed = await sql<{ n: number }>`select count(*)::int as n from subscriptions where user_id is null`.execute(billingDb());
    expect(unclaimed.rows[0]!.n).toBe(0);
    expect((await new Client(stack.app).call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'quin@example.com' })).statusCode).toBe(401);
  });

  it("answers 'unknown' for a plan code outside the five", async () => {
    await sql`insert into checkout_sessions (id, provider, plan_code, account_type, quantity, amount_cents, status, email)
              values ('cs_test_legacy', 'test', 'pro', 'personal', 1, 999, 'paid', 'old@example.com')`.execute(billingDb());
    const verified = await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_test_legacy');
    expect(verified.data.plan_code).toBe('unknown');
    expect((await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_nope')).statusCode).toBe(404);
  });

  it('renews month by month on the test clock, so invoices accumulate newest first', async () => {
    const sessionId = await buy('personal', 'sam@example.com');
    const { client } = await signUpAndClaim(sessionId, 'sam@example.com');
    await advanceDays(31);
    await advanceDays(31);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.invoices.length).toBeGreaterThanOrEqual(3);
    const starts = billing.data.invoices.map((i: { period_start: string }) => i.period_start);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(billing.data.invoices.every((i: { status: string; amount_cents: number }) => i.status === 'paid' && i.amount_cents === 799)).toBe(true);
  });

  it('refunds a first payment canceled within 7 days in full, once, and ends the plan', async () => {
    const sessionId = await buy('gaming', 'tia@example.com');
    const { client } = await signUpAndClaim(sessionId, 'tia@example.com');
    const subscriptionId = (await client.call('GET', '/api/billing')).data.subscription.id;
    const canceled = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(canceled.data).toEqual({ status: 'canceled', refunded_cents: 1199, cancel_at_period_end: false });
    const twice = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(twice.data.refunded_cents).toBe(0);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription.status).toBe('canceled');
    expect(billing.data.invoices[0].status).toBe('refunded');
    const refunds = await sql<{ n: number }>`select count(*)::int as n from refunds`.execute(billingDb());
    expect(refunds.rows[0]!.n).toBe(1);
    const stranger = new Client(stack.app);
    await stranger.call('POST', '/api/auth/signup', { email: 'ugo@example.com', password });
    expect((await stranger.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId })).statusCode).toBe(404);
  });

  it('after 7 days a cancellation runs to the end of the paid period, without a refund', async () => {
    const sessionId = await buy('personal', 'val@example.com');
    const { client } = await signUpAndClaim(sessionId, 'val@example.com');
    const subscriptionId = (await client.call('GET', '/api/billing')).data.subscription.id;
    await advanceDays(8);
    const canceled = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(canceled.data).toEqual({ status: 'active', refunded_cents: 0, cancel_at_period_end: true });
    await advanceDays(31);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription.status).toBe('canceled');
    expect(billing.data.invoices.filter((i: { status: string }) => i.status === 'paid')).toHaveLength(1);
  });

  it('a business purchase makes the buyer a business account and the owner of a new organization', async () => {
    const sessionId = await buy('business10', 'wes@example.com');
    const verified = await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${sessionId}`);
    expect(verified.data).toMatchObject({ plan_code: 'business10', account_type: 'business', quantity: 1 });
    const { client, claim } = await signUpAndClaim(sessionId, 'wes@example.com');
    expect(claim.data.account_type).toBe('business');
    expect(claim.data.org_id).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(async () => (await client.call('GET', '/api/me')).data.profile.account_type === 'business');
    const me = await client.call('GET', '/api/me');
    expect(me.data.org_member).toBe(true);
    const org = await sql<{ name: string; plan: string; role: string }>`
      select o.name, o.plan, m.role from organizations o join org_members m on m.org_id = o.id where o.id = ${claim.data.org_id}`.execute(stack.services.identity!.db);
    expect(org.rows[0]).toEqual({ name: "Wes's team", plan: 'business10', role: 'owner' });
    const refreshed = await client.call('POST', '/api/auth/refresh');
    expect(refreshed.data.user.account_type).toBe('business');
    const orgs = await client.call('GET', '/api/orgs');
    expect(orgs.data.organizations).toEqual([expect.objectContaining({ id: claim.data.org_id, name: "Wes's team", plan: 'business10', role: 'owner', is_active: true, member_count: 1 })]);
    const orgBilling = await client.call('GET', `/api/billing?org_id=${claim.data.org_id}`);
    expect(orgBilling.data.subscription).toMatchObject({ plan: 'business10', org_id: claim.data.org_id });
  });

  it('sends Manage Billing to the test portal, and a signed-out browser to sign-in first', async () => {
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'xia@example.com', password });
    const manage = await client.call('GET', '/api/billing/manage?return=/app/personal/billing');
    expect(manage.data.url).toBe('http://localhost:8080/billing/test-portal?return=%2Fapp%2Fpersonal%2Fbilling');
    expect((await client.call('GET', '/api/billing/manage?return=/')).data.url).toBe('http://localhost:8080/billing/test-portal?return=%2F');
    expect((await client.call('GET', '/api/billing/manage?return=//evil.example')).statusCode).toBe(400);
    const page = await new Client(stack.app).call('GET', '/api/billing/manage', undefined, { accept: 'text/html' });
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('/login?next=%2Fapp%2Fpersonal%2Fbilling');
  });
});
