import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { activePlanRpc, advanceClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { billingService } from '@qw/billing';
import { signInAgain, verifyEmail } from './support/products.ts';
import { Client, startStack, type Stack } from './support/stack.ts';

let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({
    label: 'billing',
    extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })],
  });
});
afterAll(async () => {
  await stack?.stop();
});

const billingDb = () => stack.services.billing!.db;

let addresses = 0;
/** Each purchase from its own client address, as different buyers are (checkout creation is limited per address). */
function buyer(): Client {
  addresses++;
  return new Client(stack.app, `198.51.100.${addresses}`);
}

async function buy(planCode: string, email: string): Promise<string> {
  const started = await buyer().call('POST', '/api/checkout', {
    plan_code: planCode,
    plan_name: planCode,
    account_type: 'personal',
    quantity: 1,
  });
  expect(started.statusCode).toBe(200);
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
    email,
    card_number: '4242 4242 4242 4242',
  });
  expect(paid.statusCode).toBe(200);
  return started.data.session_id;
}

async function signUpAndClaim(sessionId: string, email: string) {
  const client = new Client(stack.app);
  await client.call('POST', '/api/auth/signup', { email, password });
  const claim = await client.call('POST', '/api/checkout/claim', {
    session_id: sessionId,
    email,
    plan_code: 'personal',
    account_type: 'personal',
    quantity: 1,
  });
  return { client, claim };
}

/** The test clock a checkout (and the subscription it becomes) runs on, as its test page tells. */
async function clockOf(sessionId: string): Promise<string> {
  const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
  return page.data.test_clock_id;
}

async function advanceDays(clockId: string, days: number) {
  // The test clock is a tool of tests and the demo: the gateway may not ask it, the admin connection does.
  return new RpcClient(await stack.connectAdmin()).request(advanceClockRpc, { clock_id: clockId, days });
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
    const started = await new Client(stack.app).call('POST', '/api/checkout', {
      plan_code: 'personal',
      plan_name: 'Personal',
      account_type: 'personal',
      quantity: 1,
    });
    expect(started.data.url).toBe(`http://localhost:8080/test-checkout/${started.data.session_id}`);
    const sessionId: string = started.data.session_id;

    const early = await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${sessionId}`);
    expect(early.statusCode).toBe(409);

    const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
    expect(page.data).toMatchObject({ plan_name: 'Personal', amount_cents: 799, currency: 'USD', status: 'open' });

    const typo = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
      email: 'pat@example.com',
      card_number: '4242 4242 4242 4241',
    });
    expect(typo.statusCode).toBe(400);
    const declined = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
      email: 'pat@example.com',
      card_number: '4000 0000 0000 0002',
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.data.error.code).toBe('payment_declined');
    const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
      email: 'Pat@Example.com',
      card_number: '4242424242424242',
    });
    expect(paid.data.redirect_url).toBe(`http://localhost:8080/post-checkout?sid=${sessionId}`);

    const verified = await new Client(stack.app).call('GET', `/api/checkout/verify?session_id=${sessionId}`);
    expect(verified.data).toEqual({
      email: 'pat@example.com',
      plan_code: 'personal',
      account_type: 'personal',
      quantity: 1,
    });

    const { client, claim } = await signUpAndClaim(sessionId, 'pat@example.com');
    expect(claim.statusCode).toBe(200);
    expect(claim.data).toMatchObject({ account_type: 'personal', org_id: null });
    const again = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'pat@example.com' });
    expect(again.data).toEqual(claim.data);

    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription).toMatchObject({
      plan: 'personal',
      status: 'active',
      cancel_at_period_end: false,
    });
    expect(billing.data.invoices).toHaveLength(1);
    expect(billing.data.invoices[0]).toMatchObject({ amount_cents: 799, currency: 'USD', status: 'paid' });
    const subs = await sql<{ n: number }>`select count(*)::int as n from subscriptions`.execute(billingDb());
    expect(subs.rows[0]!.n).toBe(1);
  });

  it('refuses a claim with another email (409) and by another account once claimed', async () => {
    const sessionId = await buy('gaming', 'quin@example.com');
    const other = new Client(stack.app);
    await other.call('POST', '/api/auth/signup', { email: 'rex@example.com', password });
    const wrongEmail = await other.call('POST', '/api/checkout/claim', {
      session_id: sessionId,
      email: 'rex@example.com',
    });
    expect(wrongEmail.statusCode).toBe(409);
    expect(wrongEmail.data.error.code).toBe('email_mismatch');
    const pretending = await other.call('POST', '/api/checkout/claim', {
      session_id: sessionId,
      email: 'quin@example.com',
    });
    expect(pretending.statusCode).toBe(409);
    const { claim } = await signUpAndClaim(sessionId, 'quin@example.com');
    expect(claim.statusCode).toBe(200);
    const unclaimed = await sql<{
      n: number;
    }>`select count(*)::int as n from subscriptions where user_id is null`.execute(billingDb());
    expect(unclaimed.rows[0]!.n).toBe(0);
    expect(
      (
        await new Client(stack.app).call('POST', '/api/checkout/claim', {
          session_id: sessionId,
          email: 'quin@example.com',
        })
      ).statusCode,
    ).toBe(401);
  });

  it('a Business claim names its organization as the buyer chose; a name that is no name is refused and claims nothing', async () => {
    const sessionId = await buy('business10', 'quill@example.com');
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'quill@example.com', password });
    const claim = (orgName: string) =>
      client.call('POST', '/api/checkout/claim', {
        session_id: sessionId,
        email: 'quill@example.com',
        org_name: orgName,
      });
    for (const bad of ['   ', 'x'.repeat(101)]) {
      const refused = await claim(bad);
      expect(refused.statusCode, JSON.stringify(bad)).toBe(400);
      expect(refused.data.error).toMatchObject({ code: 'validation_failed', details: { field: 'org_name' } });
    }
    const unclaimed = await sql<{
      status: string;
    }>`select status from checkout_sessions where id = ${sessionId}`.execute(billingDb());
    expect(unclaimed.rows[0]!.status).not.toBe('claimed');
    const claimed = await claim('  Quill   & Co ');
    expect(claimed.statusCode).toBe(200);
    const orgs = await client.call('GET', '/api/orgs');
    expect(orgs.data.organizations.map((org: { name: string }) => org.name)).toEqual(['Quill & Co']);
  });

  it('limits checkout creation to 10 an hour per client address, with a clear 429 that writes nothing', async () => {
    const client = new Client(stack.app, '192.0.2.55');
    for (let i = 0; i < 10; i++)
      expect((await client.call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 })).statusCode).toBe(200);
    const sessions = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from checkout_sessions`.execute(billingDb())).rows[0]!.n;
    const before = await sessions();
    const refused = await client.call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    expect(refused.statusCode).toBe(429);
    expect(refused.data.error.code).toBe('rate_limited');
    expect(refused.data.error.message).toBe(
      'Too many checkouts were started from your network. Please try again in 60 minutes.',
    );
    expect(refused.data.error.details.retry_after_seconds).toBeGreaterThan(3500);
    expect(await sessions()).toBe(before);
    const elsewhere = await new Client(stack.app, '192.0.2.56').call('POST', '/api/checkout', {
      plan_code: 'personal',
      quantity: 1,
    });
    expect(elsewhere.statusCode).toBe(200);
    // An unknown plan is refused before it counts against anyone.
    const rateEvents = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from rate_events`.execute(billingDb())).rows[0]!.n;
    const counted = await rateEvents();
    const unknown = await new Client(stack.app, '192.0.2.56').call('POST', '/api/checkout', { plan_code: 'platinum' });
    expect(unknown.statusCode).toBe(400);
    expect(await rateEvents()).toBe(counted);
  });

  it('refuses a claim by an account older than the payment until its e-mail is confirmed (403 email_unverified)', async () => {
    // Someone made an account with another person's address before that person bought a plan.
    const early = new Client(stack.app);
    await early.call('POST', '/api/auth/signup', { email: 'lee@example.com', password });
    const sessionId = await buy('personal', 'lee@example.com');
    const refused = await early.call('POST', '/api/checkout/claim', {
      session_id: sessionId,
      email: 'lee@example.com',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.data.error).toEqual({
      code: 'email_unverified',
      message: 'Confirm your email address first: open the link we sent to it, then add this purchase to your account.',
    });
    const session = await billingDb()
      .selectFrom('checkout_sessions')
      .select(['status', 'claimed_by'])
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    expect(session).toEqual({ status: 'paid', claimed_by: null });

    // Only the owner of the address can confirm it; then the purchase is theirs to claim.
    await verifyEmail(stack, 'lee@example.com');
    await signInAgain(early, 'lee@example.com');
    const claimed = await early.call('POST', '/api/checkout/claim', {
      session_id: sessionId,
      email: 'lee@example.com',
    });
    expect(claimed.statusCode).toBe(200);
  });

  it("answers 'unknown' for a plan code outside the five", async () => {
    await sql`insert into checkout_sessions (id, provider, plan_code, account_type, quantity, amount_cents, status, email)
              values ('cs_test_legacy', 'test', 'pro', 'personal', 1, 999, 'paid', 'old@example.com')`.execute(
      billingDb(),
    );
    const verified = await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_test_legacy');
    expect(verified.data.plan_code).toBe('unknown');
    expect((await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_nope')).statusCode).toBe(404);
  });

  it('renews month by month on the test clock, so invoices accumulate newest first', async () => {
    const sessionId = await buy('personal', 'sam@example.com');
    const { client } = await signUpAndClaim(sessionId, 'sam@example.com');
    const clock = await clockOf(sessionId);
    await advanceDays(clock, 31);
    await advanceDays(clock, 31);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.invoices.length).toBeGreaterThanOrEqual(3);
    const starts = billing.data.invoices.map((i: { period_start: string }) => i.period_start);
    expect([...starts].sort().reverse()).toEqual(starts);
    expect(
      billing.data.invoices.every(
        (i: { status: string; amount_cents: number }) => i.status === 'paid' && i.amount_cents === 799,
      ),
    ).toBe(true);
  });

  it('gives each checkout its own test clock: advancing one neither renews nor ages another', async () => {
    const first = await buy('personal', 'ola@example.com');
    const second = await buy('personal', 'pia@example.com');
    const { client: ola } = await signUpAndClaim(first, 'ola@example.com');
    const { client: pia } = await signUpAndClaim(second, 'pia@example.com');
    const [olaClock, piaClock] = [await clockOf(first), await clockOf(second)];
    expect(olaClock).toMatch(/^[0-9a-f-]{36}$/);
    expect(piaClock).not.toBe(olaClock);

    const moved = await advanceDays(olaClock, 40);
    expect(moved.clock_id).toBe(olaClock);
    expect((await ola.call('GET', '/api/billing')).data.invoices).toHaveLength(2);
    expect((await pia.call('GET', '/api/billing')).data.invoices).toHaveLength(1);
    // Pia's clock did not move: her first payment is still inside the money-back window.
    const piaSub = (await pia.call('GET', '/api/billing')).data.subscription.id;
    const canceled = await pia.call('POST', '/api/billing/test-portal/cancel', { subscription_id: piaSub });
    expect(canceled.data).toMatchObject({ status: 'canceled', refunded_cents: 799 });

    const unknown = new RpcClient(await stack.connectAdmin()).request(advanceClockRpc, {
      clock_id: '00000000-0000-4000-8000-000000000000',
      days: 1,
    });
    await expect(unknown).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refunds a first payment canceled within 7 days in full, once, and ends the plan', async () => {
    const sessionId = await buy('gaming', 'tia@example.com');
    const { client } = await signUpAndClaim(sessionId, 'tia@example.com');
    const subscriptionId = (await client.call('GET', '/api/billing')).data.subscription.id;
    const canceled = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(canceled.data).toEqual({
      status: 'canceled',
      refunded_cents: 1199,
      cancel_at_period_end: false,
      money_back: 'refunded',
    });
    const twice = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(twice.data.refunded_cents).toBe(0);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription.status).toBe('canceled');
    expect(billing.data.invoices[0].status).toBe('refunded');
    const refunds = await sql<{
      n: number;
    }>`select count(*)::int as n from refunds r join invoices i on i.id = r.invoice_id
      where i.subscription_id = ${subscriptionId}`.execute(billingDb());
    expect(refunds.rows[0]!.n).toBe(1);
    const stranger = new Client(stack.app);
    await stranger.call('POST', '/api/auth/signup', { email: 'ugo@example.com', password });
    expect(
      (await stranger.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId })).statusCode,
    ).toBe(404);
  });

  it('gives the money back once per customer: buying again and cancelling within 7 days runs to the period end', async () => {
    const first = await buy('gaming', 'kai@example.com');
    const { client } = await signUpAndClaim(first, 'kai@example.com');
    const firstSub = (await client.call('GET', '/api/billing')).data.subscription.id;
    const refunded = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: firstSub });
    expect(refunded.data).toMatchObject({ status: 'canceled', refunded_cents: 1199, money_back: 'refunded' });

    await verifyEmail(stack, 'kai@example.com');
    await signInAgain(client, 'kai@example.com');
    const second = await buy('gaming', 'kai@example.com');
    const claim = await client.call('POST', '/api/checkout/claim', { session_id: second, email: 'kai@example.com' });
    expect(claim.statusCode).toBe(200);
    const canceled = await client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: claim.data.subscription_id,
    });
    expect(canceled.data).toEqual({
      status: 'active',
      refunded_cents: 0,
      cancel_at_period_end: true,
      money_back: 'already_used',
    });
    const refunds = await sql<{ n: number }>`select count(*)::int as n from refunds where user_id = (
      select user_id from subscriptions where id = ${firstSub})`.execute(billingDb());
    expect(refunds.rows[0]!.n).toBe(1);
  });

  it('after 7 days a cancellation runs to the end of the paid period, without a refund', async () => {
    const sessionId = await buy('personal', 'val@example.com');
    const { client } = await signUpAndClaim(sessionId, 'val@example.com');
    const subscriptionId = (await client.call('GET', '/api/billing')).data.subscription.id;
    const clock = await clockOf(sessionId);
    await advanceDays(clock, 8);
    const canceled = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(canceled.data).toEqual({
      status: 'active',
      refunded_cents: 0,
      cancel_at_period_end: true,
      money_back: 'none',
    });
    await advanceDays(clock, 31);
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
      select o.name, o.plan, m.role from organizations o join org_members m on m.org_id = o.id where o.id = ${claim.data.org_id}`.execute(
      stack.services.identity!.db,
    );
    expect(org.rows[0]).toEqual({ name: "Wes's team", plan: 'business10', role: 'owner' });
    const refreshed = await client.call('POST', '/api/auth/refresh');
    expect(refreshed.data.user.account_type).toBe('business');
    const orgs = await client.call('GET', '/api/orgs');
    expect(orgs.data.organizations).toEqual([
      expect.objectContaining({
        id: claim.data.org_id,
        name: "Wes's team",
        plan: 'business10',
        role: 'owner',
        is_active: true,
        member_count: 1,
      }),
    ]);
    const orgBilling = await client.call('GET', `/api/billing?org_id=${claim.data.org_id}`);
    expect(orgBilling.data.subscription).toMatchObject({ plan: 'business10', org_id: claim.data.org_id });
  });

  it("answers provisioning's active-plan question at once after a claim, for a person or an organization", async () => {
    // Provisioning's question, asked with the bus's admin rights (the gateway may not ask it).
    const rpc = new RpcClient(await stack.connectAdmin());
    const personal = await buy('gaming', 'yan@example.com');
    const { client, claim } = await signUpAndClaim(personal, 'yan@example.com');
    const userId: string = (await client.call('GET', '/api/me')).data.user.id;
    expect(await rpc.request(activePlanRpc, { user_id: userId })).toEqual({
      plan: { plan_code: 'gaming', status: 'active', subscription_id: claim.data.subscription_id },
    });

    const business = await buy('business10', 'zed@example.com');
    const owner = await signUpAndClaim(business, 'zed@example.com');
    const ownerId: string = (await owner.client.call('GET', '/api/me')).data.user.id;
    expect(await rpc.request(activePlanRpc, { org_id: owner.claim.data.org_id })).toEqual({
      plan: { plan_code: 'business10', status: 'active', subscription_id: owner.claim.data.subscription_id },
    });
    // The owner's organization plan is not a personal plan.
    expect(await rpc.request(activePlanRpc, { user_id: ownerId })).toEqual({ plan: null });

    await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: claim.data.subscription_id });
    expect(await rpc.request(activePlanRpc, { user_id: userId })).toEqual({ plan: null });
    await expect(rpc.request(activePlanRpc, {})).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      rpc.request(activePlanRpc, { user_id: userId, org_id: owner.claim.data.org_id }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('sends Manage Billing to the test portal, and a signed-out browser to sign-in first', async () => {
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'xia@example.com', password });
    const manage = await client.call('GET', '/api/billing/manage?return=/app/personal/billing');
    expect(manage.data.url).toBe('http://localhost:8080/billing/test-portal?return=%2Fapp%2Fpersonal%2Fbilling');
    expect((await client.call('GET', '/api/billing/manage?return=/')).data.url).toBe(
      'http://localhost:8080/billing/test-portal?return=%2F',
    );
    expect((await client.call('GET', '/api/billing/manage?return=//evil.example')).statusCode).toBe(400);
    const page = await new Client(stack.app).call('GET', '/api/billing/manage', undefined, { accept: 'text/html' });
    expect(page.statusCode).toBe(302);
    expect(page.headers.location).toBe('/login?next=%2Fapp%2Fpersonal%2Fbilling');
  });
});
