import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import Stripe from 'stripe';
import { billingService } from '@qw/billing';
import { Client, startStack, type Stack } from './support/stack.ts';

/** A stand-in for Stripe's API on loopback: it records each request and answers like Stripe. */
type Recorded = { method: string; path: string; form: URLSearchParams };
const recorded: Recorded[] = [];
let standIn: Server;
let standInUrl: string;
let sessionCount = 0;

function answer(method: string, path: string): unknown {
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    sessionCount++;
    return { id: `cs_stripe_${sessionCount}`, object: 'checkout.session', url: `https://checkout.stripe.test/c/pay/cs_stripe_${sessionCount}`, status: 'open' };
  }
  if (method === 'GET' && path.startsWith('/v1/checkout/sessions/')) return { id: path.split('/').pop(), object: 'checkout.session', status: 'open' };
  if (method === 'POST' && path === '/v1/billing_portal/sessions') return { id: 'bps_1', object: 'billing_portal.session', url: 'https://billing.stripe.test/p/session_1' };
  if (method === 'POST' && path === '/v1/refunds') return { id: 're_1', object: 'refund', status: 'succeeded' };
  return undefined;
}

const webhookSecret = 'whsec_test_secret_for_quietwire';
const signer = new Stripe('sk_test_signer');
let stack: Stack;
let eventSeq = 0;

function event(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
  eventSeq++;
  return { id: `evt_${eventSeq}`, object: 'event', type, created, api_version: '2025-01-01', data: { object } };
}

async function deliver(payload: object, options: { secret?: string; client?: Client } = {}) {
  const body = JSON.stringify(payload);
  const header = signer.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? webhookSecret });
  return (options.client ?? new Client(stack.app)).call('POST', '/api/billing/webhook', body, { 'content-type': 'application/json', 'stripe-signature': header });
}

const completed = (sessionId: string, subscription: string, email: string) => ({
  id: sessionId, object: 'checkout.session', status: 'complete', customer: 'cus_1', subscription, customer_details: { email }, metadata: { plan_code: 'personal' },
});
const subscriptionObject = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id, object: 'subscription', status, customer: 'cus_1', cancel_at_period_end: false, metadata: { plan_code: 'personal' },
  items: { data: [{ price: { id: 'price_personal_monthly' }, current_period_start: 1_790_000_000, current_period_end: 1_792_592_000 }] }, ...extra,
});
const paidInvoice = (id: string, subscription: string, amount = 799) => ({
  id, object: 'invoice', customer: 'cus_1', subscription, amount_paid: amount, amount_due: amount, currency: 'usd', payment_intent: `pi_${id}`,
  status_transitions: { paid_at: Math.floor(Date.now() / 1000) }, lines: { data: [{ price: { id: 'price_personal_monthly' }, period: { start: 1_790_000_000, end: 1_792_592_000 } }] },
});

beforeAll(async () => {
  standIn = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0]!;
      recorded.push({ method: request.method ?? '', path, form: new URLSearchParams(body) });
      const json = answer(request.method ?? '', path);
      response.writeHead(json ? 200 : 404, { 'content-type': 'application/json', 'request-id': 'req_test' });
      response.end(JSON.stringify(json ?? { error: { type: 'invalid_request_error', message: 'not in the stand-in' } }));
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', () => resolve()));
  standInUrl = `http://127.0.0.1:${(standIn.address() as { port: number }).port}`;
  stack = await startStack({
    label: 'stripe',
    extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, STRIPE_SECRET_KEY: 'sk_test_quietwire', STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_URL: standInUrl, BILLING_TEST_CLOCK: false })],
  });
});

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => standIn?.close(resolve));
});

const billingDb = () => stack.services.billing!.db;
const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(billingDb())).rows[0]!.n;

describe('Stripe', () => {
  it('creates a Checkout Session in subscription mode with the plan price and our return addresses', async () => {
    const response = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: 'gaming', plan_name: 'Gaming', account_type: 'personal', quantity: 1 });
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
    const bad = await deliver(event('checkout.session.completed', completed('cs_stripe_1', 'sub_1', 'ann@example.com')), { secret: 'whsec_wrong' });
    expect(bad.statusCode).toBe(400);
    const unsigned = await new Client(stack.app).call('POST', '/api/billing/webhook', '{}', { 'content-type': 'application/json' });
    expect(unsigned.statusCode).toBe(400);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from webhook_events`)).toBe(before);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from checkout_sessions where status <> 'open'`)).toBe(0);
  });

  it('applies checkout completion once, however many times it is delivered, and the purchase is claimable', async () => {
    const payload = event('checkout.session.completed', completed('cs_stripe_1', 'sub_1', 'Ann@Example.com'));
    for (let i = 0; i < 10; i++) expect((await deliver(payload)).statusCode).toBe(200);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from webhook_events where id = ${payload.id}`)).toBe(1);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from subscriptions where provider_subscription_id = 'sub_1'`)).toBe(1);
    expect(await count(sql<{ n: number }>`select count(*)::int as n from checkout_sessions where id = 'cs_stripe_1' and status = 'paid'`)).toBe(1);
    const verified = await new Client(stack.app).call('GET', '/api/checkout/verify?sid=cs_stripe_1');
    expect(verified.data).toEqual({ email: 'ann@example.com', plan_code: 'gaming', account_type: 'personal', quantity: 1 });

    expect((await deliver(event('invoice.paid', paidInvoice('in_1', 'sub_1', 1199)))).statusCode).toBe(200);
    const client = new Client(stack.app);
    await client.call('POST', '/api/auth/signup', { email: 'ann@example.com', password: 'correct horse battery' });
    expect((await client.call('POST', '/api/checkout/claim', { session_id: 'cs_stripe_1', email: 'ann@example.com' })).statusCode).toBe(200);
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
    const status = await billingDb().selectFrom('subscriptions').select('status').where('provider_subscription_id', '=', 'sub_2').executeTakeFirstOrThrow();
    expect(status.status).toBe('past_due');
    await deliver(event('customer.subscription.deleted', subscriptionObject('sub_2', 'canceled'), now + 120));
    await deliver(event('customer.subscription.updated', subscriptionObject('sub_2', 'active'), now + 90));
    const final = await billingDb().selectFrom('subscriptions').select('status').where('provider_subscription_id', '=', 'sub_2').executeTakeFirstOrThrow();
    expect(final.status).toBe('canceled');
  });

  it('records an invoice that arrives before its checkout, and a failed payment marks the plan past due', async () => {
    const response = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const sessionId: string = response.data.session_id;
    await deliver(event('invoice.paid', paidInvoice('in_early', 'sub_3')));
    await deliver(event('checkout.session.completed', completed(sessionId, 'sub_3', 'bea@example.com')));
    const sub = await billingDb().selectFrom('subscriptions').selectAll().where('provider_subscription_id', '=', 'sub_3').executeTakeFirstOrThrow();
    expect(sub.status).toBe('active');
    const invoices = await billingDb().selectFrom('invoices').selectAll().where('subscription_id', '=', sub.id).execute();
    expect(invoices.map((i) => [i.provider_invoice_id, i.status, i.amount_cents])).toEqual([['in_early', 'paid', 799]]);
    await deliver(event('invoice.payment_failed', { ...paidInvoice('in_late', 'sub_3'), amount_paid: 0 }));
    const after = await billingDb().selectFrom('subscriptions').select('status').where('id', '=', sub.id).executeTakeFirstOrThrow();
    expect(after.status).toBe('past_due');
  });

  it('refunds the first payment through Stripe when the plan is canceled within 7 days', async () => {
    const response = await new Client(stack.app).call('POST', '/api/checkout', { plan_code: 'personal', quantity: 1 });
    const sessionId: string = response.data.session_id;
    await deliver(event('checkout.session.completed', completed(sessionId, 'sub_4', 'cy@example.com')));
    await deliver(event('invoice.paid', paidInvoice('in_4', 'sub_4')));
    await deliver(event('customer.subscription.updated', subscriptionObject('sub_4', 'active', { cancel_at_period_end: true })));
    const refund = recorded.find((r) => r.path === '/v1/refunds')!;
    expect(refund.form.get('payment_intent')).toBe('pi_in_4');
    expect(refund.form.get('amount')).toBe('799');
    await deliver(event('customer.subscription.deleted', subscriptionObject('sub_4', 'canceled')));
    expect(recorded.filter((r) => r.path === '/v1/refunds')).toHaveLength(1);
    const invoice = await billingDb().selectFrom('invoices').select('status').where('provider_invoice_id', '=', 'in_4').executeTakeFirstOrThrow();
    expect(invoice.status).toBe('refunded');
  });
});
