import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import Stripe from 'stripe';
import { advanceClockRpc, startClockRpc, testCheckoutInfoRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { billingService } from '@qw/billing';
import { eventually } from '@qw/testkit';
import { signInAgain, verifyEmail } from './support/products.ts';
import { Client, signUp, signUpConfirmed, startStack, type Stack } from './support/stack.ts';

/**
 * A stand-in for Stripe's API on loopback: it records each request and answers like Stripe,
 * including idempotency: a request repeating an Idempotency-Key gets the first answer again and
 * creates nothing new.
 */
type Recorded = { method: string; path: string; form: URLSearchParams; idempotencyKey: string | undefined };
const recorded: Recorded[] = [];
/** Refunds the stand-in really made (replays of a key are not new refunds). */
const refundsMade: Recorded[] = [];
const canceledAtStripe = new Set<string>();
const replays = new Map<string, unknown>();
/** While set, the stand-in answers every subscription cancellation with a 500, as Stripe down would. */
let cancellationsFail = false;
let standIn: Server;
let standInUrl: string;
let sessionCount = 0;

function answer(request: Recorded): unknown {
  const { method, path } = request;
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    sessionCount++;
    return {
      id: `cs_stripe_${sessionCount}`,
      object: 'checkout.session',
      url: `https://checkout.stripe.test/c/pay/cs_stripe_${sessionCount}`,
      status: 'open',
    };
  }
  if (method === 'GET' && path.startsWith('/v1/checkout/sessions/'))
    return { id: path.split('/').pop(), object: 'checkout.session', status: 'open', payment_status: 'unpaid' };
  if (method === 'POST' && path === '/v1/billing_portal/sessions')
    return { id: 'bps_1', object: 'billing_portal.session', url: 'https://billing.stripe.test/p/session_1' };
  if (method === 'POST' && path === '/v1/refunds') {
    refundsMade.push(request);
    return { id: `re_${refundsMade.length}`, object: 'refund', status: 'succeeded' };
  }
  const subscription = /^\/v1\/subscriptions\/(\w+)$/.exec(path)?.[1];
  if (subscription && method === 'DELETE') canceledAtStripe.add(subscription);
  if (subscription && (method === 'DELETE' || method === 'GET')) return stripeSubscription(subscription);
  if (subscription && method === 'POST') {
    // A price change with always_invoice: Stripe's own proration invoice, paid at once.
    const state = atStripe(subscription);
    state.price = request.form.get('items[0][price]') ?? state.price;
    state.planCode = request.form.get('metadata[plan_code]') ?? state.planCode;
    const now = Math.floor(Date.now() / 1000);
    return {
      ...stripeSubscription(subscription),
      latest_invoice: {
        id: `in_proration_${subscription}`,
        object: 'invoice',
        status: 'paid',
        amount_paid: prorationAtStripe,
        amount_due: prorationAtStripe,
        currency: 'usd',
        payment_intent: `pi_proration_${subscription}`,
        status_transitions: { paid_at: now },
        parent: { subscription_details: { subscription, metadata: { plan_code: state.planCode } } },
        lines: { data: [{ price: { id: state.price }, period: { start: now, end: state.periodEnd } }] },
      },
    };
  }
  if (method === 'POST' && path === '/v1/subscription_schedules') {
    const id = `sub_sched_${schedules.size + 1}`;
    const of = request.form.get('from_subscription')!;
    schedules.set(id, { subscription: of, status: 'active' });
    atStripe(of).schedule = id;
    return scheduleObject(id);
  }
  const schedule = /^\/v1\/subscription_schedules\/(\w+)(\/release)?$/.exec(path);
  if (schedule && schedules.has(schedule[1]!)) {
    const id = schedule[1]!;
    if (schedule[2]) {
      schedules.get(id)!.status = 'released';
      atStripe(schedules.get(id)!.subscription).schedule = null;
    } else if (method === 'POST') {
      // Phases set: the plan the next phase waits with (what Stripe answers in phases[1].metadata).
      schedules.get(id)!.waiting = request.form.get('phases[1][metadata][plan_code]') ?? undefined;
    }
    return scheduleObject(id);
  }
  return undefined;
}

/** Subscriptions as the stand-in keeps them (those it was never told about are Personal ones). */
type AtStripe = { price: string; planCode: string; schedule: string | null; periodStart: number; periodEnd: number };
const subscriptionsAtStripe = new Map<string, AtStripe>();
const schedules = new Map<string, { subscription: string; status: string; waiting?: string | undefined }>();
const monthlyPrices: Record<string, number> = { price_personal_monthly: 799, price_gaming_monthly: 1199 };
/** What the stand-in's proration invoices charge: Stripe's sum, which billing takes as it is. */
const prorationAtStripe = 253;
const startedAtStripe = 1_789_000_000;

function atStripe(id: string): AtStripe {
  let state = subscriptionsAtStripe.get(id);
  if (!state) {
    state = {
      price: 'price_personal_monthly',
      planCode: 'personal',
      schedule: null,
      periodStart: 1_790_000_000,
      periodEnd: 1_792_592_000,
    };
    subscriptionsAtStripe.set(id, state);
  }
  return state;
}

function stripeSubscription(id: string) {
  const state = atStripe(id);
  return {
    id,
    object: 'subscription',
    status: canceledAtStripe.has(id) ? 'canceled' : 'active',
    customer: 'cus_1',
    cancel_at_period_end: false,
    start_date: startedAtStripe,
    schedule: state.schedule,
    pending_update: null,
    metadata: { plan_code: state.planCode },
    items: {
      data: [
        {
          id: `si_${id}`,
          quantity: 1,
          price: {
            id: state.price,
            unit_amount: monthlyPrices[state.price],
            recurring: { interval: 'month', interval_count: 1 },
          },
          current_period_start: state.periodStart,
          current_period_end: state.periodEnd,
        },
      ],
    },
  };
}

function scheduleObject(id: string) {
  const { subscription, status, waiting } = schedules.get(id)!;
  const { periodStart, periodEnd } = atStripe(subscription);
  return {
    id,
    object: 'subscription_schedule',
    status,
    subscription,
    current_phase: status === 'active' ? { start_date: periodStart, end_date: periodEnd } : null,
    phases: [
      { start_date: periodStart, end_date: periodEnd },
      ...(waiting ? [{ start_date: periodEnd, end_date: null, metadata: { plan_code: waiting } }] : []),
    ],
  };
}

const webhookSecret = 'whsec_test_secret_for_quietwire';
const signer = new Stripe('sk_test_signer');
let stack: Stack;
let eventSeq = 0;

function event(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
  eventSeq++;
  return { id: `evt_${eventSeq}`, object: 'event', type, created, api_version: '2025-01-01', data: { object } };
}

/** Posts a signed event and answers as soon as the webhook does (its effect may still be to come). */
async function post(payload: object, options: { secret?: string; client?: Client } = {}) {
  const body = JSON.stringify(payload);
  const header = signer.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? webhookSecret });
  return (options.client ?? new Client(stack.app)).call('POST', '/api/billing/webhook', body, {
    'content-type': 'application/json',
    'stripe-signature': header,
  });
}

/** Whether billing has applied the stored event (the webhook only records it; a worker applies it). */
async function handled(eventId: string): Promise<boolean> {
  const { rows } = await sql<{ handled: boolean }>`select handled_at is not null as handled from webhook_events
    where id = ${eventId}`.execute(billingDb());
  return rows[0]?.handled === true;
}

/** Posts a signed event and, when it was accepted, waits until billing has applied it. */
async function deliver(payload: { id: string }, options: { secret?: string; client?: Client } = {}) {
  const response = await post(payload, options);
  if (response.statusCode === 200) await eventually(() => handled(payload.id));
  return response;
}

const completed = (sessionId: string, subscription: string, email: string, paymentStatus = 'paid') => ({
  id: sessionId,
  object: 'checkout.session',
  status: 'complete',
  payment_status: paymentStatus,
  customer: 'cus_1',
  subscription,
  customer_details: { email },
  metadata: { plan_code: 'personal' },
});
const subscriptionObject = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'subscription',
  status,
  customer: 'cus_1',
  cancel_at_period_end: false,
  metadata: { plan_code: 'personal' },
  items: {
    data: [
      {
        price: { id: 'price_personal_monthly' },
        current_period_start: 1_790_000_000,
        current_period_end: 1_792_592_000,
      },
    ],
  },
  ...extra,
});
const paidInvoice = (id: string, subscription: string, amount = 799, price = 'price_personal_monthly') => ({
  id,
  object: 'invoice',
  customer: 'cus_1',
  subscription,
  amount_paid: amount,
  amount_due: amount,
  currency: 'usd',
  payment_intent: `pi_${id}`,
  status_transitions: { paid_at: Math.floor(Date.now() / 1000) },
  lines: { data: [{ price: { id: price }, period: { start: 1_790_000_000, end: 1_792_592_000 } }] },
});

beforeAll(async () => {
  standIn = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0]!;
      const key = request.headers['idempotency-key'];
      const call: Recorded = {
        method: request.method ?? '',
        path,
        form: new URLSearchParams(body),
        idempotencyKey: typeof key === 'string' ? key : undefined,
      };
      recorded.push(call);
      if (cancellationsFail && call.method === 'DELETE' && path.startsWith('/v1/subscriptions/')) {
        response.writeHead(500, { 'content-type': 'application/json', 'request-id': 'req_test' });
        response.end(JSON.stringify({ error: { type: 'api_error', message: 'down in the stand-in' } }));
        return;
      }
      const replayKey = call.idempotencyKey && `${call.method} ${path} ${call.idempotencyKey}`;
      const json = (replayKey && replays.get(replayKey)) || answer(call);
      if (replayKey && json) replays.set(replayKey, json);
      response.writeHead(json ? 200 : 404, { 'content-type': 'application/json', 'request-id': 'req_test' });
      response.end(
        JSON.stringify(json ?? { error: { type: 'invalid_request_error', message: 'not in the stand-in' } }),
      );
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', () => resolve()));
  standInUrl = `http://127.0.0.1:${(standIn.address() as { port: number }).port}`;
  stack = await startStack({
    label: 'stripe',
    extra: (publicUrl) => [
      billingService({
        PUBLIC_URL: publicUrl,
        STRIPE_SECRET_KEY: 'sk_test_quietwire',
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_URL: standInUrl,
        BILLING_TEST_CLOCK: false,
        refundRetryEveryMs: 200,
        webhookRetryEveryMs: 200,
      }),
    ],
  });
});

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => standIn?.close(resolve));
});

const billingDb = () => stack.services.billing!.db;
const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(billingDb())).rows[0]!.n;

let addresses = 0;
/** Each purchase from its own client address, as different buyers are (checkout creation is limited per address). */
function buyer(): Client {
  addresses++;
  return new Client(stack.app, `198.51.100.${addresses}`);
}

/** A Stripe checkout paid for `email`, its first invoice paid, claimed by a new (or the given) account. */
async function paidAndClaimed(
  providerSubscriptionId: string,
  invoiceId: string,
  email: string,
  account?: Client,
  planCode: 'personal' | 'gaming' = 'personal',
) {
  const price = `price_${planCode}_monthly`;
  Object.assign(atStripe(providerSubscriptionId), { price, planCode });
  const started = await buyer().call('POST', '/api/checkout', { plan_code: planCode, quantity: 1 });
  const sessionId: string = started.data.session_id;
  await deliver(event('checkout.session.completed', completed(sessionId, providerSubscriptionId, email)));
  await deliver(event('invoice.paid', paidInvoice(invoiceId, providerSubscriptionId, monthlyPrices[price], price)));
  const client = account ?? new Client(stack.app);
  if (!account) await client.call('POST', '/api/auth/signup', { email, password: 'correct horse battery' });
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email });
  expect(claim.statusCode).toBe(200);
  return { sessionId, client, subscriptionId: claim.data.subscription_id as string };
}

const refundsFor = (paymentIntent: string) => refundsMade.filter((r) => r.form.get('payment_intent') === paymentIntent);

async function refundOf(subscriptionId: string) {
  return billingDb()
    .selectFrom('refunds')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
}

/** How many events billing published on this subject so far in this file's namespace. */
async function published(subject: string): Promise<number> {
  const admin = await stack.connectAdmin();
  const info = await admin.jsm.streams.info(admin.ns.stream('billing'), { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

/** The events billing published on `subject` about one subscription, oldest first (the outbox drained first). */
async function publishedAbout(subject: string, subscriptionId: string): Promise<Array<Record<string, any>>> {
  await eventually(async () => (await count(sql<{ n: number }>`select count(*)::int as n from outbox`)) === 0);
  const admin = await stack.connectAdmin();
  const stream = admin.ns.stream('billing');
  const { state } = await admin.jsm.streams.info(stream);
  const found: Array<Record<string, any>> = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await admin.jsm.streams.getMessage(stream, { seq });
    const data = message?.subject === subject ? (message.json() as { data: Record<string, any> }).data : undefined;
    if (data?.subscriptionId === subscriptionId) found.push(data);
  }
  return found;
}

async function lastPublished(subject: string): Promise<Record<string, unknown>> {
  const admin = await stack.connectAdmin();
  const message = await admin.jsm.streams.getMessage(admin.ns.stream('billing'), { last_by_subj: subject });
  if (!message) throw new Error(`nothing published on ${subject}`);
  return (message.json() as { data: Record<string, unknown> }).data;
}

describe('Stripe', () => {
  it('creates a Checkout Session in subscription mode with the plan price and our return addresses', async () => {
    const response = await buyer().call('POST', '/api/checkout', {
      plan_code: 'gaming',
      plan_name: 'Gaming',
      account_type: 'personal',
      quantity: 1,
    });
    expect(response.statusCode).toBe(200);
    expect(response.data.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_stripe_\d+$/);
    const request = recorded.find((r) => r.path === '/v1/checkout/sessions')!;
    expect(request.method).toBe('POST');
    expect(request.form.get('mode')).toBe('subscription');
    expect(request.form.get('line_items[0][price]')).toBe('price_gaming_monthly');
    expect(request.form.get('line_items[0][quantity]')).toBe('1');
    expect(request.form.get('success_url')).toBe('http://localhost:8080/post-checkout?sid={CHECKOUT_SESSION_ID}');
    expect(request.form.get('cancel_url')).toBe('http://localhost:8080/pricing');
    expect(request.form.get('metadata[plan_code]')).toBe('gaming');
  });

  it('refuses a webhook with a bad signature with 400 and writes nothing', async () => {
    const before = await count(sql<{ n: number }>`select count(*)::int as n from webhook_events`);
    const bad = await deliver(
      event('checkout.session.completed', completed('cs_stripe_1', 'sub_1', 'ann@example.com')),
      { secret: 'whsec_wrong' },
    );
    expect(bad.statusCode).toBe(400);
    const unsigned = await new Client(stack.app).call('POST', '/api/billing/webhook', '{}', {
      'content-type': 'application/json',
    });
    expect(unsigned.statusCode).toBe(400);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from webhook_events`)).toBe(before);
    expect(
      await count(sql<{ n: number }>`select count(*)::int as n from checkout_sessions where status <> 'open'`),
    ).toBe(0);
  });

  it('applies checkout completion once, however many times it is delivered, and the purchase is claimable', async () => {
    const payload = event('checkout.session.completed', completed('cs_stripe_1', 'sub_1', 'Ann@Example.com'));
    for (let i = 0; i < 10; i++) expect((await deliver(payload)).statusCode).toBe(200);
    expect(
      await count(sql<{ n: number }>`select count(*)::int as n from webhook_events where id = ${payload.id}`),
    ).toBe(1);
    expect(
      await count(
        sql<{ n: number }>`select count(*)::int as n from subscriptions where provider_subscription_id = 'sub_1'`,
      ),
    ).toBe(1);
    expect(
      await count(
        sql<{
          n: number;
        }>`select count(*)::int as n from checkout_sessions where id = 'cs_stripe_1' and status = 'paid'`,
      ),
    ).toBe(1);
    const verified = await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_stripe_1');
    expect(verified.data).toEqual({
      email: 'ann@example.com',
      plan_code: 'gaming',
      account_type: 'personal',
      quantity: 1,
    });

    expect((await deliver(event('invoice.paid', paidInvoice('in_1', 'sub_1', 1199)))).statusCode).toBe(200);
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'ann@example.com', password: 'correct horse battery' });
    expect(
      (await client.call('POST', '/api/checkout/claim', { session_id: 'cs_stripe_1', email: 'ann@example.com' }))
        .statusCode,
    ).toBe(200);
    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.provider).toBe('stripe');
    expect(billing.data.subscription).toMatchObject({ plan: 'gaming', status: 'active' });
    expect(billing.data.invoices).toHaveLength(1);
    expect(billing.data.invoices[0]).toMatchObject({ amount_cents: 1199, currency: 'USD', status: 'paid' });

    const manage = await client.call('GET', '/api/billing/manage');
    expect(manage.data.url).toBe('https://billing.stripe.test/p/session_1');
    const portal = recorded.find((r) => r.path === '/v1/billing_portal/sessions')!;
    expect(portal.form.get('customer')).toBe('cus_1');
    expect(portal.form.get('return_url')).toBe('http://localhost:8080/app/personal/billing');
  });

  it('ends with the right status when subscription events arrive out of order', async () => {
    const now = Math.floor(Date.now() / 1000);
    await deliver(event('customer.subscription.updated', subscriptionObject('sub_2', 'past_due'), now + 60));
    await deliver(event('customer.subscription.updated', subscriptionObject('sub_2', 'active'), now));
    const status = await billingDb()
      .selectFrom('subscriptions')
      .select('status')
      .where('provider_subscription_id', '=', 'sub_2')
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('past_due');
    await deliver(event('customer.subscription.deleted', subscriptionObject('sub_2', 'canceled'), now + 120));
    await deliver(event('customer.subscription.updated', subscriptionObject('sub_2', 'active'), now + 90));
    const final = await billingDb()
      .selectFrom('subscriptions')
      .select('status')
      .where('provider_subscription_id', '=', 'sub_2')
      .executeTakeFirstOrThrow();
    expect(final.status).toBe('canceled');
  });

  it('records an invoice that arrives before its checkout, and a failed payment marks the plan past due', async () => {
    const response = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const sessionId: string = response.data.session_id;
    await deliver(event('invoice.paid', paidInvoice('in_early', 'sub_3')));
    await deliver(event('checkout.session.completed', completed(sessionId, 'sub_3', 'bea@example.com')));
    const sub = await billingDb()
      .selectFrom('subscriptions')
      .selectAll()
      .where('provider_subscription_id', '=', 'sub_3')
      .executeTakeFirstOrThrow();
    expect(sub.status).toBe('active');
    const invoices = await billingDb()
      .selectFrom('invoices')
      .selectAll()
      .where('subscription_id', '=', sub.id)
      .execute();
    expect(invoices.map((i) => [i.provider_invoice_id, i.status, i.amount_cents])).toEqual([['in_early', 'paid', 799]]);
    await deliver(event('invoice.payment_failed', { ...paidInvoice('in_late', 'sub_3'), amount_paid: 0 }));
    const after = await billingDb()
      .selectFrom('subscriptions')
      .select('status')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe('past_due');
  });

  it('a cancellation within 7 days refunds the first payment once and ends the plan at once, at Stripe and here', async () => {
    const { subscriptionId, client } = await paidAndClaimed('sub_4', 'in_4', 'cy@example.com');
    const canceledBefore = await published('billing.subscription.canceled');
    // The customer canceled "at the end of the period" in Stripe's portal, two days after paying.
    await deliver(
      event('customer.subscription.updated', subscriptionObject('sub_4', 'active', { cancel_at_period_end: true })),
    );
    // Issued after the event was applied and committed: waited for.
    await eventually(async () => (await refundOf(subscriptionId)).status === 'issued');
    const refund = await refundOf(subscriptionId);
    expect(refund).toMatchObject({ status: 'issued', amount_cents: 799 });
    const made = refundsFor('pi_in_4');
    expect(made).toHaveLength(1);
    expect(made[0]!.form.get('amount')).toBe('799');
    expect(made[0]!.idempotencyKey).toBe(refund.id);
    const cancel = recorded.find((r) => r.method === 'DELETE' && r.path === '/v1/subscriptions/sub_4');
    expect(cancel?.idempotencyKey).toBe(`cancel-${refund.id}`);

    const billing = await client.call('GET', '/api/billing');
    expect(billing.data.subscription).toMatchObject({ status: 'canceled', cancel_at_period_end: false });
    expect(billing.data.invoices[0].status).toBe('refunded');
    // Provisioning hears it at once and suspends the devices.
    await eventually(async () => (await published('billing.subscription.canceled')) === canceledBefore + 1);
    expect((await lastPublished('billing.subscription.canceled')).subscriptionId).toBe(subscriptionId);

    // Stripe's own deletion, and the same cancellation told again, refund nothing more.
    await deliver(event('customer.subscription.deleted', subscriptionObject('sub_4', 'canceled')));
    await deliver(
      event('customer.subscription.updated', subscriptionObject('sub_4', 'active', { cancel_at_period_end: true })),
    );
    expect(refundsFor('pi_in_4')).toHaveLength(1);
    expect((await client.call('GET', '/api/billing')).data.subscription.status).toBe('canceled');
  });

  it('gives the money back once per customer: buying again and cancelling within 7 days runs to the period end', async () => {
    const first = await paidAndClaimed('sub_7', 'in_7', 'gil@example.com');
    await deliver(event('customer.subscription.deleted', subscriptionObject('sub_7', 'canceled')));
    await eventually(async () => (await refundOf(first.subscriptionId)).status === 'issued');
    expect(refundsFor('pi_in_7')).toHaveLength(1);

    await verifyEmail(stack, 'gil@example.com');
    // The first verification ended the person's other sessions and their access tokens.
    await signInAgain(first.client, 'gil@example.com');
    const again = await paidAndClaimed('sub_8', 'in_8', 'gil@example.com', first.client);
    await deliver(
      event('customer.subscription.updated', subscriptionObject('sub_8', 'active', { cancel_at_period_end: true })),
    );
    expect(refundsFor('pi_in_8')).toHaveLength(0);
    expect(recorded.some((r) => r.path === '/v1/subscriptions/sub_8')).toBe(false);
    const sub = await billingDb()
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', again.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ status: 'active', cancel_at_period_end: true });
  });

  it('counts a checkout as paid only when Stripe says paid: delayed methods wait, or fail', async () => {
    const started = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const sessionId: string = started.data.session_id;
    await deliver(event('checkout.session.completed', completed(sessionId, 'sub_9', 'eve@example.com', 'unpaid')));
    expect((await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${sessionId}`)).statusCode).toBe(409);
    await deliver(
      event('checkout.session.async_payment_succeeded', completed(sessionId, 'sub_9', 'eve@example.com', 'paid')),
    );
    const verified = await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${sessionId}`);
    expect(verified.statusCode).toBe(200);
    expect(verified.data.email).toBe('eve@example.com');

    const failing = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const failingId: string = failing.data.session_id;
    await deliver(event('checkout.session.completed', completed(failingId, 'sub_11', 'ivy@example.com', 'unpaid')));
    await deliver(
      event('checkout.session.async_payment_failed', completed(failingId, 'sub_11', 'ivy@example.com', 'unpaid')),
    );
    const refused = await new Client(stack.app).call('GET', `/api/checkout/verify?sid=${failingId}`);
    expect(refused.statusCode).toBe(402);
    expect(refused.data.error).toEqual({
      code: 'payment_declined',
      message: 'The payment for this checkout did not go through. Start again from the pricing page.',
    });
    expect(
      await count(
        sql<{ n: number }>`select count(*)::int as n from subscriptions where provider_subscription_id = 'sub_11'`,
      ),
    ).toBe(0);
  });

  it('a failure after Stripe refunded but before it was recorded neither loses nor doubles the refund', async () => {
    const { subscriptionId } = await paidAndClaimed('sub_10', 'in_10', 'fox@example.com');
    const issuedBefore = await published('billing.refund.issued');
    // The database refuses to record the refund as issued, as if the process died right after Stripe
    // answered. A sequence (which no rollback undoes) tells when that refusal has happened.
    await sql`create sequence fail_refund_hits`.execute(billingDb());
    await sql`create function fail_refund_issue() returns trigger language plpgsql as
      $$ begin perform nextval('fail_refund_hits'); raise exception 'simulated failure before commit'; end $$`.execute(
      billingDb(),
    );
    await sql`create trigger fail_refund_issue before update on refunds for each row
      when (new.status = 'issued') execute function fail_refund_issue()`.execute(billingDb());
    const delivered = await deliver(
      event('customer.subscription.updated', subscriptionObject('sub_10', 'active', { cancel_at_period_end: true })),
    );
    expect(delivered.statusCode).toBe(200);
    // Stripe is asked after the event was applied and committed: waited for.
    await eventually(() => refundsFor('pi_in_10').length === 1);
    const pending = await refundOf(subscriptionId);
    expect(pending.status).toBe('pending');
    expect(refundsFor('pi_in_10')).toHaveLength(1);
    const sub = await billingDb()
      .selectFrom('subscriptions')
      .select('status')
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.status).toBe('canceled');

    // Only once the recording after Stripe's answer has been refused: dropped earlier, that first
    // recording could still succeed (a loaded machine between Stripe's answer and the update).
    await eventually(
      async () =>
        (await sql<{ called: boolean }>`select is_called as called from fail_refund_hits`.execute(billingDb())).rows[0]
          ?.called === true,
    );
    await sql`drop trigger fail_refund_issue on refunds`.execute(billingDb());
    await sql`drop function fail_refund_issue()`.execute(billingDb());
    await sql`drop sequence fail_refund_hits`.execute(billingDb());
    // The periodic retry asks Stripe again with the same key: Stripe answers the refund it made.
    await eventually(async () => (await refundOf(subscriptionId)).status === 'issued');
    const asked = recorded.filter((r) => r.path === '/v1/refunds' && r.form.get('payment_intent') === 'pi_in_10');
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked.map((r) => r.idempotencyKey))).toEqual(new Set([pending.id]));
    expect(refundsFor('pi_in_10')).toHaveLength(1);
    const invoice = await billingDb()
      .selectFrom('invoices')
      .select('status')
      .where('provider_invoice_id', '=', 'in_10')
      .executeTakeFirstOrThrow();
    expect(invoice.status).toBe('refunded');
    await eventually(async () => (await count(sql<{ n: number }>`select count(*)::int as n from outbox`)) === 0);
    expect(await published('billing.refund.issued')).toBe(issuedBefore + 1);
    expect((await lastPublished('billing.refund.issued')).refundId).toBe(pending.id);
  });

  it('a deleted account ends its plan here at once and at Stripe as soon as Stripe answers, once', async () => {
    // Signed up, confirmed and signed in first, so the claim adds the plan to this session's
    // account (an account older than the payment claims only with a confirmed address; whether it
    // was older depended on the second the event's payment time fell in).
    const account = await signUpConfirmed(stack, 'ivy@leaving.example.org', '198.51.100.211');
    const { subscriptionId, client } = await paidAndClaimed('sub_11', 'in_11', 'ivy@leaving.example.org', account);
    const record = (id: string) =>
      billingDb().selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    cancellationsFail = true;
    const canceledBefore = await published('billing.subscription.canceled');
    try {
      expect((await client.call('POST', '/api/me/delete', { password: 'correct horse battery' })).statusCode).toBe(200);
      await eventually(async () => (await record(subscriptionId)).status === 'canceled');
      await eventually(() => recorded.some((r) => r.method === 'DELETE' && r.path === '/v1/subscriptions/sub_11'));
      // Stripe is down: the cancellation waits, marked, and the address is gone already.
      expect(await record(subscriptionId)).toMatchObject({ status: 'canceled', provider_cancel_due: true });
      const customers = await billingDb()
        .selectFrom('customers')
        .select('email')
        .where('email', '=', 'ivy@leaving.example.org')
        .execute();
      expect(customers).toEqual([]);
    } finally {
      cancellationsFail = false;
    }
    await eventually(async () => (await record(subscriptionId)).provider_cancel_due === false, 10_000);
    expect(canceledAtStripe.has('sub_11')).toBe(true);
    const keys = new Set(
      recorded
        .filter((r) => r.method === 'DELETE' && r.path === '/v1/subscriptions/sub_11')
        .map((r) => r.idempotencyKey),
    );
    expect([...keys]).toEqual([`delete-account-${subscriptionId}`]);
    expect(await published('billing.subscription.canceled')).toBe(canceledBefore + 1);
  });

  it('answers not_found for every test-provider call while Stripe takes the payments', async () => {
    const refundsBefore = refundsMade.length;
    const response = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const sessionId: string = response.data.session_id;
    await deliver(event('checkout.session.completed', completed(sessionId, 'sub_test_calls', 'dee@example.com')));
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'dee@example.com', password: 'correct horse battery' });
    expect(
      (await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email: 'dee@example.com' }))
        .statusCode,
    ).toBe(200);
    const subscriptionId: string = (await client.call('GET', '/api/billing')).data.subscription.id;

    const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
    expect(page.statusCode).toBe(404);
    const pay = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
      email: 'dee@example.com',
      card_number: '4242424242424242',
    });
    expect(pay.statusCode).toBe(404);
    const cancel = await client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: subscriptionId });
    expect(cancel.statusCode).toBe(404);
    expect(cancel.data.error.code).toBe('not_found');
    const rpc = new RpcClient(stack.bus);
    await expect(rpc.request(testCheckoutInfoRpc, { session_id: sessionId })).rejects.toMatchObject({
      code: 'not_found',
    });
    const admin = new RpcClient(await stack.connectAdmin());
    await expect(admin.request(advanceClockRpc, { clock_id: subscriptionId, days: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      admin.request(startClockRpc, { clock_id: subscriptionId, at: '2025-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({ code: 'not_found' });

    const sub = await billingDb()
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect(refundsMade).toHaveLength(refundsBefore);
  });
  describe('webhooks recorded, then handled', () => {
    const sessionStatus = async (id: string) =>
      (
        await billingDb()
          .selectFrom('checkout_sessions')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;

    it('answers 200 once the verified event is stored, before its effect is applied', async () => {
      const started = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
      const sessionId: string = started.data.session_id;
      const payload = event('checkout.session.completed', completed(sessionId, 'sub_12', 'hal@example.com'));
      // Another connection holds the checkout's row: whatever applies the event waits for it. (A
      // connection of its own, not a kysely transaction: the webhook's own RPC is not asked inside it.)
      await billingDb()
        .connection()
        .execute(async (connection) => {
          await sql`begin`.execute(connection);
          try {
            await sql`select id from checkout_sessions where id = ${sessionId} for update`.execute(connection);
            const answer = await Promise.race([
              post(payload),
              new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 3000)),
            ]);
            expect(answer).not.toBe('still waiting');
            expect(answer).toMatchObject({ statusCode: 200, data: { received: true, duplicate: false } });
            expect(await handled(payload.id)).toBe(false);
            expect(await sessionStatus(sessionId)).toBe('open');
          } finally {
            await sql`commit`.execute(connection);
          }
        });
      await eventually(() => handled(payload.id));
      expect(await sessionStatus(sessionId)).toBe('paid');
    });

    it('retries an event whose handling failed until it applies, and applies it once', async () => {
      const started = await buyer().call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
      const sessionId: string = started.data.session_id;
      const payload = event('checkout.session.completed', completed(sessionId, 'sub_13', 'jo@example.com'));
      // The database refuses the checkout's change, as a crash or an outage in the middle of applying would.
      await sql`create function fail_checkout_paid() returns trigger language plpgsql as
        $$ begin raise exception 'simulated failure while applying'; end $$`.execute(billingDb());
      await sql`create trigger fail_checkout_paid before update on checkout_sessions for each row
        when (new.status = 'paid') execute function fail_checkout_paid()`.execute(billingDb());
      try {
        const first = await post(payload);
        expect(first.statusCode).toBe(200);
        await eventually(async () => {
          const { rows } = await sql<{ attempts: number }>`select attempts from webhook_events
            where id = ${payload.id}`.execute(billingDb());
          return (rows[0]?.attempts ?? 0) >= 1;
        });
        expect(await handled(payload.id)).toBe(false);
        expect(await sessionStatus(sessionId)).toBe('open');
        // Stripe delivers it again meanwhile: recorded once, still waiting for its retry.
        expect((await post(payload)).data).toEqual({ received: true, duplicate: true });
      } finally {
        await sql`drop trigger fail_checkout_paid on checkout_sessions`.execute(billingDb());
        await sql`drop function fail_checkout_paid()`.execute(billingDb());
      }
      await eventually(() => handled(payload.id));
      expect(await sessionStatus(sessionId)).toBe('paid');
      expect(
        await count(
          sql<{ n: number }>`select count(*)::int as n from subscriptions where provider_subscription_id = 'sub_13'`,
        ),
      ).toBe(1);
      expect(
        await count(sql<{ n: number }>`select count(*)::int as n from webhook_events where id = ${payload.id}`),
      ).toBe(1);
    });

    it('a cancellation delivered several times at once refunds once', async () => {
      const { subscriptionId } = await paidAndClaimed('sub_14', 'in_14', 'kit@example.com');
      const payload = event(
        'customer.subscription.updated',
        subscriptionObject('sub_14', 'active', { cancel_at_period_end: true }),
      );
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(payload)));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((a) => a.data.duplicate === false)).toHaveLength(1);
      await eventually(() => handled(payload.id));
      await eventually(async () => (await refundOf(subscriptionId)).status === 'issued');
      expect(refundsFor('pi_in_14')).toHaveLength(1);
      expect(
        await count(sql<{ n: number }>`select count(*)::int as n from refunds
        where subscription_id = ${subscriptionId}`),
      ).toBe(1);
      // Stored only until applied: the event's body (e-mail addresses) is not kept.
      const { rows } = await sql<{ payload: unknown }>`select payload from webhook_events
        where id = ${payload.id}`.execute(billingDb());
      expect(rows[0]!.payload).toBeNull();
    });
  });

  describe('plan changes', () => {
    const changePlan = (client: Client, subscriptionId: string, planCode: string) =>
      client.call('POST', '/api/billing/change-plan', { subscription_id: subscriptionId, plan_code: planCode });
    const record = (subscriptionId: string) =>
      billingDb().selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirstOrThrow();

    it("an upgrade changes the item's price at Stripe with always_invoice and records Stripe's proration invoice; the webhooks after change nothing", async () => {
      const { client, subscriptionId } = await paidAndClaimed('sub_up', 'in_up', 'una@example.com');
      const changed = await changePlan(client, subscriptionId, 'gaming');
      expect(changed.statusCode).toBe(200);
      // What Stripe charged, as Stripe says.
      expect(changed.data).toMatchObject({ takes_effect: 'now', charged_cents: prorationAtStripe });
      expect(changed.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: null });

      const update = recorded.find((r) => r.method === 'POST' && r.path === '/v1/subscriptions/sub_up')!;
      expect(update.form.get('items[0][id]')).toBe('si_sub_up');
      expect(update.form.get('items[0][price]')).toBe('price_gaming_monthly');
      expect(update.form.get('proration_behavior')).toBe('always_invoice');
      expect(update.form.get('payment_behavior')).toBe('pending_if_incomplete');
      expect(update.form.get('metadata[plan_code]')).toBe('gaming');
      expect(update.idempotencyKey).toMatch(new RegExp(`^upgrade-${subscriptionId}-gaming-\\d+$`));

      expect(await record(subscriptionId)).toMatchObject({ plan_code: 'gaming', monthly_cents: 1199 });
      const invoices = () =>
        billingDb()
          .selectFrom('invoices')
          .select(['provider_invoice_id', 'plan_code', 'amount_cents', 'status'])
          .where('subscription_id', '=', subscriptionId)
          .orderBy('created_at')
          .execute();
      expect(await invoices()).toEqual([
        { provider_invoice_id: 'in_up', plan_code: 'personal', amount_cents: 799, status: 'paid' },
        {
          provider_invoice_id: 'in_proration_sub_up',
          plan_code: 'gaming',
          amount_cents: prorationAtStripe,
          status: 'paid',
        },
      ]);
      const updated = (await publishedAbout('billing.subscription.updated', subscriptionId)).at(-1)!;
      expect(updated).toMatchObject({
        planCode: 'gaming',
        monthlyCents: 1199,
        pendingPlanCode: null,
        startedAt: new Date(startedAtStripe * 1000).toISOString(),
      });
      expect(Math.abs(new Date(updated.effectiveAt).getTime() - Date.now())).toBeLessThan(60_000);

      // Stripe's own webhooks about the same change: nothing more is charged or recorded.
      const { latest_invoice: proration } = replays.get(`POST /v1/subscriptions/sub_up ${update.idempotencyKey}`) as {
        latest_invoice: Record<string, unknown>;
      };
      await deliver(event('customer.subscription.updated', stripeSubscription('sub_up')));
      await deliver(event('invoice.paid', proration));
      expect(await invoices()).toHaveLength(2);
      expect(await record(subscriptionId)).toMatchObject({
        plan_code: 'gaming',
        monthly_cents: 1199,
        status: 'active',
      });
    });

    it('a downgrade waits in a subscription schedule for the renewal, whose webhooks move the plan and charge the new price', async () => {
      const { client, subscriptionId } = await paidAndClaimed(
        'sub_down',
        'in_down',
        'dot@example.com',
        undefined,
        'gaming',
      );
      const changed = await changePlan(client, subscriptionId, 'personal');
      expect(changed.statusCode).toBe(200);
      expect(changed.data).toMatchObject({ takes_effect: 'period_end', charged_cents: 0 });
      expect(changed.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: 'personal' });

      const made = recorded.find((r) => r.method === 'POST' && r.path === '/v1/subscription_schedules')!;
      expect(made.form.get('from_subscription')).toBe('sub_down');
      expect(made.idempotencyKey).toBeDefined();
      const scheduleId = atStripe('sub_down').schedule!;
      const phases = recorded.find(
        (r) => r.method === 'POST' && r.path === `/v1/subscription_schedules/${scheduleId}`,
      )!;
      expect(Object.fromEntries(phases.form)).toMatchObject({
        end_behavior: 'release',
        proration_behavior: 'none',
        'phases[0][items][0][price]': 'price_gaming_monthly',
        'phases[0][start_date]': '1790000000',
        'phases[0][end_date]': '1792592000',
        'phases[0][metadata][plan_code]': 'gaming',
        'phases[1][items][0][price]': 'price_personal_monthly',
        'phases[1][proration_behavior]': 'none',
        'phases[1][duration][interval]': 'month',
        'phases[1][metadata][plan_code]': 'personal',
      });
      expect(phases.idempotencyKey).toBeDefined();
      expect(recorded.some((r) => r.path === '/v1/subscriptions/sub_down' && r.method === 'POST')).toBe(false);
      expect(await record(subscriptionId)).toMatchObject({
        plan_code: 'gaming',
        pending_plan_code: 'personal',
        provider_schedule_id: scheduleId,
      });
      expect((await client.call('GET', '/api/billing')).data.subscription.pending_plan).toBe('personal');
      const waiting = (await publishedAbout('billing.subscription.updated', subscriptionId)).at(-1)!;
      expect(waiting).toMatchObject({ planCode: 'gaming', monthlyCents: 1199, pendingPlanCode: 'personal' });

      // A webhook from before the downgrade, arriving late (no schedule then), changes nothing.
      const now = Math.floor(Date.now() / 1000);
      await deliver(
        event('customer.subscription.updated', { ...stripeSubscription('sub_down'), schedule: null }, now - 60),
      );
      expect(await record(subscriptionId)).toMatchObject({ plan_code: 'gaming', pending_plan_code: 'personal' });
      // Stripe tells of the schedule attached: still Gaming, the downgrade still waits.
      await deliver(event('customer.subscription.updated', stripeSubscription('sub_down'), now + 1));
      expect(await record(subscriptionId)).toMatchObject({ plan_code: 'gaming', pending_plan_code: 'personal' });

      // The renewal: the schedule's next phase sets the Personal price; its invoice charges 799.
      Object.assign(atStripe('sub_down'), {
        price: 'price_personal_monthly',
        planCode: 'personal',
        periodStart: 1_792_592_000,
        periodEnd: 1_795_184_000,
      });
      const renewedAt = now + 120;
      await deliver(event('customer.subscription.updated', stripeSubscription('sub_down'), renewedAt));
      await deliver(
        event('invoice.paid', {
          ...paidInvoice('in_down_renewal', 'sub_down', 799),
          lines: {
            data: [{ price: { id: 'price_personal_monthly' }, period: { start: 1_792_592_000, end: 1_795_184_000 } }],
          },
        }),
      );
      expect(await record(subscriptionId)).toMatchObject({
        plan_code: 'personal',
        monthly_cents: 799,
        pending_plan_code: null,
      });
      const renewal = await billingDb()
        .selectFrom('invoices')
        .select(['plan_code', 'amount_cents'])
        .where('provider_invoice_id', '=', 'in_down_renewal')
        .executeTakeFirstOrThrow();
      expect(renewal).toEqual({ plan_code: 'personal', amount_cents: 799 });
      const applied = (await publishedAbout('billing.subscription.updated', subscriptionId)).at(-1)!;
      expect(applied).toMatchObject({
        planCode: 'personal',
        monthlyCents: 799,
        pendingPlanCode: null,
        effectiveAt: new Date(renewedAt * 1000).toISOString(),
      });
    });

    it('the current plan again releases the schedule at Stripe and calls the downgrade off', async () => {
      const { client, subscriptionId } = await paidAndClaimed(
        'sub_off',
        'in_off',
        'ott@example.com',
        undefined,
        'gaming',
      );
      await changePlan(client, subscriptionId, 'personal');
      const scheduleId = atStripe('sub_off').schedule!;
      const calledOff = await changePlan(client, subscriptionId, 'gaming');
      expect(calledOff.statusCode).toBe(200);
      expect(calledOff.data).toMatchObject({ takes_effect: 'now', charged_cents: 0 });
      expect(calledOff.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: null });
      const release = recorded.find((r) => r.path === `/v1/subscription_schedules/${scheduleId}/release`)!;
      expect(release.idempotencyKey).toBe(`release-${scheduleId}`);
      expect(schedules.get(scheduleId)!.status).toBe('released');
      expect(await record(subscriptionId)).toMatchObject({ pending_plan_code: null, provider_schedule_id: null });
      const event = (await publishedAbout('billing.subscription.updated', subscriptionId)).at(-1)!;
      expect(event).toMatchObject({ planCode: 'gaming', pendingPlanCode: null, monthlyCents: 1199 });
    });

    it('a downgrade asked again (a retry after a lost answer) repeats its idempotency keys, so Stripe makes no second change', async () => {
      const { client, subscriptionId } = await paidAndClaimed(
        'sub_again',
        'in_again',
        'ari@example.com',
        undefined,
        'gaming',
      );
      const writesAt = (scheduleId: string | null) =>
        recorded.filter(
          (r) =>
            r.method === 'POST' &&
            (r.form.get('from_subscription') === 'sub_again' || r.path === `/v1/subscription_schedules/${scheduleId}`),
        );
      expect((await changePlan(client, subscriptionId, 'personal')).statusCode).toBe(200);
      const scheduleId = atStripe('sub_again').schedule;
      const [made, phases] = writesAt(scheduleId);
      // Same subscription, same plan, same period: the same key.
      expect(made!.idempotencyKey).toMatch(new RegExp(`^downgrade-${subscriptionId}-personal-\\d+-schedule$`));

      expect((await changePlan(client, subscriptionId, 'personal')).statusCode).toBe(200);
      const retried = writesAt(scheduleId).slice(2);
      expect(retried.map((r) => r.idempotencyKey)).toEqual([phases!.idempotencyKey]);
      expect([...schedules.values()].filter((s) => s.subscription === 'sub_again')).toHaveLength(1);
      expect(await record(subscriptionId)).toMatchObject({
        pending_plan_code: 'personal',
        provider_schedule_id: scheduleId,
      });
    });

    it('a downgrade called off and asked again in the same period gets a new schedule at Stripe, not the released one', async () => {
      const { client, subscriptionId } = await paidAndClaimed(
        'sub_twice',
        'in_twice',
        'bo@example.com',
        undefined,
        'gaming',
      );
      await changePlan(client, subscriptionId, 'personal');
      const first = atStripe('sub_twice').schedule!;
      await changePlan(client, subscriptionId, 'gaming');
      expect(schedules.get(first)!.status).toBe('released');
      const again = await changePlan(client, subscriptionId, 'personal');
      expect(again.statusCode).toBe(200);
      const second = atStripe('sub_twice').schedule;
      expect(second).not.toBeNull();
      expect(second).not.toBe(first);
      expect(schedules.get(second!)!.status).toBe('active');
      expect(await record(subscriptionId)).toMatchObject({
        pending_plan_code: 'personal',
        provider_schedule_id: second,
      });
      // Its phases were set (not an answer replayed for the released schedule).
      expect(recorded.some((r) => r.method === 'POST' && r.path === `/v1/subscription_schedules/${second}`)).toBe(true);
    });

    it('refuses without asking Stripe: another customer 404, another account type 422, an unknown plan 400', async () => {
      const { client, subscriptionId } = await paidAndClaimed('sub_no', 'in_no', 'noa@example.com');
      const other = await paidAndClaimed('sub_other', 'in_other', 'oli@example.com');
      const asked = recorded.length;
      expect((await changePlan(other.client, subscriptionId, 'gaming')).statusCode).toBe(404);
      expect((await changePlan(client, subscriptionId, 'business50')).data.error.code).toBe('unprocessable');
      expect((await changePlan(client, subscriptionId, 'gold')).data.error.code).toBe('unknown_plan');
      expect(recorded.length).toBe(asked);
      expect(await record(subscriptionId)).toMatchObject({ plan_code: 'personal', pending_plan_code: null });
    });
  });
});
