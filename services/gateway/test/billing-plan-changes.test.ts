import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { advanceClockRpc, startClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { billingService } from '@qw/billing';
import { Client, signUp, startStack, type Stack } from './support/stack.ts';
import { changeRole, joinOrganization, ownOrganization, userIdOf } from './support/organizations.ts';

/**
 * Plan changes, the test clock started in the past, and the times and prices billing's events
 * carry for analytics, through the real gateway, billing and identity. Purchases start on
 * 2025-04-01 (a 30-day April) through `start-clock`, so periods and prorations are sums by hand.
 */
let stack: Stack;
const password = 'correct horse battery';
const april = '2025-04-01T00:00:00.000Z';
const day = 86_400_000;

beforeAll(async () => {
  stack = await startStack({
    label: 'planchanges',
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

type Purchase = { sessionId: string; clockId: string; client: Client; subscriptionId: string };

/** Buys a plan on a clock started at `at`, signs up with the paid address and claims it. */
async function subscribe(planCode: string, email: string, at = april): Promise<Purchase> {
  const started = await new Client(stack.app, buyerAddress()).call('POST', '/api/checkout', {
    plan_code: planCode,
    quantity: 1,
  });
  expect(started.statusCode).toBe(200);
  const sessionId: string = started.data.session_id;
  const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
  const clockId: string = page.data.test_clock_id;
  await (await admin()).request(startClockRpc, { clock_id: clockId, at });
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
    email,
    card_number: '4242 4242 4242 4242',
  });
  expect(paid.statusCode).toBe(200);
  const client = new Client(stack.app, buyerAddress());
  await client.call('POST', '/api/auth/signup', { email, password });
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email });
  expect(claim.statusCode).toBe(200);
  return { sessionId, clockId, client, subscriptionId: claim.data.subscription_id };
}

async function advance(clockId: string, days: number): Promise<Date> {
  const moved = await (await admin()).request(advanceClockRpc, { clock_id: clockId, days });
  return new Date(moved.now);
}

function changePlan(purchase: Purchase, planCode: string, client = purchase.client) {
  return client.call('POST', '/api/billing/change-plan', {
    subscription_id: purchase.subscriptionId,
    plan_code: planCode,
  });
}

type Published = { subject: string; data: Record<string, any> };

/** Everything billing published so far (its outbox drained first), oldest first. */
async function published(): Promise<Published[]> {
  await eventually(
    async () => (await sql<{ n: number }>`select count(*)::int as n from outbox`.execute(billingDb())).rows[0]!.n === 0,
  );
  const bus = await stack.connectAdmin();
  const stream = bus.ns.stream('billing');
  const { state } = await bus.jsm.streams.info(stream);
  const events: Published[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await bus.jsm.streams.getMessage(stream, { seq });
    if (message) events.push({ subject: message.subject, data: (message.json() as { data: any }).data });
  }
  return events;
}

async function eventsOf(subscriptionId: string, subject: string): Promise<Array<Record<string, any>>> {
  return (await published())
    .filter((event) => event.subject === subject && event.data.subscriptionId === subscriptionId)
    .map((event) => event.data);
}

async function invoicesOf(subscriptionId: string) {
  return billingDb()
    .selectFrom('invoices')
    .select(['plan_code', 'amount_cents', 'status', 'period_start', 'period_end', 'paid_at'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('period_start')
    .execute();
}

const near = (value: string | Date | null | undefined, expected: Date, withinMs = 60_000) =>
  value !== null && value !== undefined && Math.abs(new Date(value).getTime() - expected.getTime()) < withinMs;

describe('plan changes', () => {
  it('an upgrade 10 days into a 30-day period charges the rest of the period at once; the renewal charges the new price', async () => {
    const purchase = await subscribe('personal', 'uma@example.com');
    const now = await advance(purchase.clockId, 10);

    const changed = await changePlan(purchase, 'gaming');
    expect(changed.statusCode).toBe(200);
    // (1199 − 799) cents × 20 of 30 days left = 266.67 → 267 cents.
    expect(changed.data).toMatchObject({ takes_effect: 'now', charged_cents: 267 });
    expect(changed.data.subscription).toMatchObject({ plan: 'gaming', status: 'active', pending_plan: null });

    const invoices = await invoicesOf(purchase.subscriptionId);
    expect(invoices.map((i) => [i.plan_code, i.amount_cents, i.status])).toEqual([
      ['personal', 799, 'paid'],
      ['gaming', 267, 'paid'],
    ]);
    const proration = invoices[1]!;
    expect(near(proration.period_start, now)).toBe(true);
    expect(near(proration.paid_at, now)).toBe(true);
    expect(proration.period_end).toEqual(invoices[0]!.period_end);
    expect(near(proration.period_end, new Date('2025-05-01T00:00:00Z'), 10_000)).toBe(true);

    const updated = (await eventsOf(purchase.subscriptionId, 'billing.subscription.updated')).at(-1)!;
    expect(updated).toMatchObject({ planCode: 'gaming', monthlyCents: 1199, status: 'active', pendingPlanCode: null });
    expect(near(updated.effectiveAt, now)).toBe(true);
    expect(near(updated.startedAt, new Date(april), 10_000)).toBe(true);
    const charged = (await eventsOf(purchase.subscriptionId, 'billing.invoice.paid')).at(-1)!;
    expect(charged).toMatchObject({ planCode: 'gaming', amountCents: 267 });
    expect(near(charged.paidAt, now)).toBe(true);

    // The renewal charges Gaming's price, not the last invoice's 267.
    await advance(purchase.clockId, 20);
    const after = await invoicesOf(purchase.subscriptionId);
    expect(after).toHaveLength(3);
    expect(after[2]).toMatchObject({ plan_code: 'gaming', amount_cents: 1199, status: 'paid' });
    expect(after[2]!.period_start).toEqual(invoices[0]!.period_end);
    const billing = await purchase.client.call('GET', '/api/billing');
    expect(billing.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: null });
    // Each invoice says what it is for (issue #26), newest first; the upgrade's receipt too.
    expect(billing.data.invoices.map((i: { description: string }) => i.description)).toEqual([
      'Gaming plan, monthly renewal',
      'Upgrade from Personal to Gaming, prorated for 11 Apr – 1 May',
      'Personal plan, first month',
    ]);
    const receipt = await purchase.client.call('GET', `/api/billing/invoices/${billing.data.invoices[1].id}`);
    expect(receipt.data).toMatchObject({
      description: 'Upgrade from Personal to Gaming, prorated for 11 Apr – 1 May',
      amount_cents: 267,
    });
  });

  it('a downgrade waits for the renewal, which charges the new price and says when it took effect', async () => {
    const purchase = await subscribe('gaming', 'dan@example.com');
    const now = await advance(purchase.clockId, 10);

    const changed = await changePlan(purchase, 'personal');
    expect(changed.statusCode).toBe(200);
    expect(changed.data).toMatchObject({ takes_effect: 'period_end', charged_cents: 0 });
    expect(changed.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: 'personal' });
    const overview = await purchase.client.call('GET', '/api/billing');
    expect(overview.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: 'personal' });
    expect(overview.data.invoices).toHaveLength(1);

    // MRR does not move yet: still Gaming's price, with the downgrade announced.
    const waiting = (await eventsOf(purchase.subscriptionId, 'billing.subscription.updated')).at(-1)!;
    expect(waiting).toMatchObject({ planCode: 'gaming', monthlyCents: 1199, pendingPlanCode: 'personal' });
    expect(near(waiting.effectiveAt, now)).toBe(true);

    await advance(purchase.clockId, 20);
    const invoices = await invoicesOf(purchase.subscriptionId);
    expect(invoices.map((i) => [i.plan_code, i.amount_cents])).toEqual([
      ['gaming', 1199],
      ['personal', 799],
    ]);
    const renewal = invoices[1]!;
    expect(near(renewal.period_start, new Date('2025-05-01T00:00:00Z'), 10_000)).toBe(true);
    const billing = await purchase.client.call('GET', '/api/billing');
    expect(billing.data.subscription).toMatchObject({ plan: 'personal', pending_plan: null });

    const applied = (await eventsOf(purchase.subscriptionId, 'billing.subscription.updated')).at(-1)!;
    expect(applied).toMatchObject({ planCode: 'personal', monthlyCents: 799, pendingPlanCode: null });
    // It took effect at the renewal, on the subscription's clock.
    expect(applied.effectiveAt).toBe(new Date(renewal.period_start).toISOString());
  });

  it('choosing the current plan again calls off a waiting downgrade', async () => {
    const purchase = await subscribe('gaming', 'cal@example.com');
    await advance(purchase.clockId, 5);
    expect((await changePlan(purchase, 'personal')).data.subscription.pending_plan).toBe('personal');

    const calledOff = await changePlan(purchase, 'gaming');
    expect(calledOff.statusCode).toBe(200);
    expect(calledOff.data).toMatchObject({ takes_effect: 'now', charged_cents: 0 });
    expect(calledOff.data.subscription).toMatchObject({ plan: 'gaming', pending_plan: null });
    const event = (await eventsOf(purchase.subscriptionId, 'billing.subscription.updated')).at(-1)!;
    expect(event).toMatchObject({ planCode: 'gaming', monthlyCents: 1199, pendingPlanCode: null });

    // Asked again: nothing to do, nothing written.
    const eventsBefore = (await published()).length;
    expect((await changePlan(purchase, 'gaming')).data).toMatchObject({ charged_cents: 0 });
    expect((await published()).length).toBe(eventsBefore);

    await advance(purchase.clockId, 30);
    const invoices = await invoicesOf(purchase.subscriptionId);
    expect(invoices.map((i) => [i.plan_code, i.amount_cents])).toEqual([
      ['gaming', 1199],
      ['gaming', 1199],
    ]);
  });

  it('refuses, changing nothing: another customer 404, another account type 422, an unknown plan 400, an ended or ending plan 409', async () => {
    const purchase = await subscribe('personal', 'ria@example.com');
    const other = await subscribe('gaming', 'oto@example.com');
    const footprint = async () => ({
      subscription: await billingDb()
        .selectFrom('subscriptions')
        .select(['plan_code', 'pending_plan_code', 'status', 'monthly_cents'])
        .where('id', '=', purchase.subscriptionId)
        .executeTakeFirstOrThrow(),
      invoices: (await invoicesOf(purchase.subscriptionId)).length,
      events: (await published()).length,
    });
    const before = await footprint();

    const stranger = await changePlan(purchase, 'gaming', other.client);
    expect(stranger.statusCode).toBe(404);
    expect(stranger.data.error).toEqual({ code: 'not_found', message: 'Subscription not found.' });
    const business = await changePlan(purchase, 'business10');
    expect(business.statusCode).toBe(422);
    expect(business.data.error).toEqual({
      code: 'unprocessable',
      message:
        'Business 10 is a business plan and this subscription is a personal one: a personal subscription can move only between Personal and Gaming.',
    });
    const unknown = await changePlan(purchase, 'platinum');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.data.error).toMatchObject({ code: 'unknown_plan', message: 'Unknown plan: platinum.' });
    const malformed = await purchase.client.call('POST', '/api/billing/change-plan', {
      subscription_id: 'not-an-id',
      plan_code: 'gaming',
    });
    expect(malformed.statusCode).toBe(400);
    expect(await footprint()).toEqual(before);

    // Set to end with its period (cancelled after the 7 days), then ended.
    await advance(purchase.clockId, 8);
    const canceled = await purchase.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: purchase.subscriptionId,
    });
    expect(canceled.data).toMatchObject({ cancel_at_period_end: true });
    const ending = await footprint();
    const refusedEnding = await changePlan(purchase, 'gaming');
    expect(refusedEnding.statusCode).toBe(409);
    expect(refusedEnding.data.error).toEqual({
      code: 'conflict',
      message:
        'This subscription is set to end with its current period. Resume it in Manage Billing first, then change the plan.',
    });
    expect(await footprint()).toEqual(ending);

    await advance(purchase.clockId, 30);
    const ended = await footprint();
    expect(ended.subscription.status).toBe('canceled');
    const refusedEnded = await changePlan(purchase, 'gaming');
    expect(refusedEnded.statusCode).toBe(409);
    expect(refusedEnded.data.error).toEqual({
      code: 'conflict',
      message: 'This subscription has ended. Choose a plan in Billing to subscribe again.',
    });
    expect(await footprint()).toEqual(ended);
  });

  it("an organization's plan is its owners' to change: its admins and members get 403, anyone else 404", async () => {
    // Identity says who owns the organization; its admin and member join by invitation.
    const purchase = await subscribe('business10', 'oda@example.com');
    const orgId = await ownOrganization(purchase.client);
    const people: Record<'admin' | 'member', Client> = {} as never;
    for (const role of ['admin', 'member'] as const) {
      const email = `${role}-of-oda@example.com`;
      people[role] = new Client(stack.app, buyerAddress());
      await people[role].call('POST', '/api/auth/signup', { email, password });
      await joinOrganization(stack, orgId, purchase.client, { client: people[role], email }, role);
    }
    const outsider = await subscribe('personal', 'out@example.com');
    const invoicesBefore = (await invoicesOf(purchase.subscriptionId)).length;

    for (const role of ['admin', 'member'] as const) {
      const refused = await changePlan(purchase, 'business50', people[role]);
      expect(refused.statusCode, role).toBe(403);
      expect(refused.data.error).toEqual({
        code: 'forbidden',
        message: 'Only an owner of the organization can change its plan. Ask one of its owners.',
      });
    }
    expect((await changePlan(purchase, 'business50', outsider.client)).statusCode).toBe(404);
    expect((await changePlan(purchase, 'gaming')).statusCode).toBe(422);
    expect((await invoicesOf(purchase.subscriptionId)).length).toBe(invoicesBefore);

    await advance(purchase.clockId, 15);
    const upgraded = await changePlan(purchase, 'business50');
    expect(upgraded.statusCode).toBe(200);
    // (20000 − 5000) cents × 15 of 30 days left = 7500 cents.
    expect(upgraded.data).toMatchObject({ takes_effect: 'now', charged_cents: 7500 });
    expect(upgraded.data.subscription).toMatchObject({ plan: 'business50', org_id: orgId });
    const orgBilling = await purchase.client.call('GET', `/api/billing?org_id=${orgId}`);
    expect(orgBilling.data.subscription).toMatchObject({ plan: 'business50' });
    const event = (await eventsOf(purchase.subscriptionId, 'billing.subscription.updated')).at(-1)!;
    expect(event).toMatchObject({ orgId, planCode: 'business50', monthlyCents: 20000 });
  });

  it("every billing action on an organization's plan is its owners': Manage Billing and cancel refuse its admins and members (403), who still read it", async () => {
    const purchase = await subscribe('business10', 'otto@example.com');
    const orgId = await ownOrganization(purchase.client);
    const people = {} as Record<'coOwner' | 'admin' | 'member', Client>;
    for (const [name, role] of [
      ['coOwner', 'admin'],
      ['admin', 'admin'],
      ['member', 'member'],
    ] as const) {
      const email = `${name.toLowerCase()}-of-otto@example.com`;
      people[name] = await signUp(stack, email, buyerAddress(), password);
      await joinOrganization(stack, orgId, purchase.client, { client: people[name], email }, role);
    }
    await changeRole(purchase.client, orgId, await userIdOf(people.coOwner), 'owner');
    // The buyer steps down to admin: having paid once gives no lasting right over the plan.
    await changeRole(people.coOwner, orgId, await userIdOf(purchase.client), 'admin');
    const outsider = await subscribe('personal', 'outsider-of-otto@example.com');
    const manage = (client: Client) =>
      client.call('GET', `/api/billing/manage?org_id=${orgId}&return=/app/business/billing`);
    const cancel = (client: Client) =>
      client.call('POST', '/api/billing/test-portal/cancel', { subscription_id: purchase.subscriptionId });
    const state = () =>
      billingDb()
        .selectFrom('subscriptions')
        .select(['status', 'cancel_at_period_end'])
        .where('id', '=', purchase.subscriptionId)
        .executeTakeFirstOrThrow();
    const before = await state();

    for (const [who, client] of [
      ['admin', people.admin],
      ['member', people.member],
      ['the buyer, now an admin', purchase.client],
    ] as const) {
      const portal = await manage(client);
      expect(portal.statusCode, who).toBe(403);
      expect(portal.data.error, who).toEqual({
        code: 'forbidden',
        message: 'Only an owner of the organization can manage its billing. Ask one of its owners.',
      });
      const canceled = await cancel(client);
      expect(canceled.statusCode, who).toBe(403);
      expect(canceled.data.error, who).toEqual({
        code: 'forbidden',
        message: 'Only an owner of the organization can cancel its plan. Ask one of its owners.',
      });
    }
    expect((await manage(outsider.client)).statusCode).toBe(404);
    expect((await cancel(outsider.client)).statusCode).toBe(404);
    expect(await state()).toEqual(before);
    // Reading stays with the admins, as the spec's Billing screen shows it to them.
    for (const client of [people.admin, purchase.client])
      expect((await client.call('GET', `/api/billing?org_id=${orgId}`)).statusCode).toBe(200);

    // Any owner acts on it, not only the one who paid.
    expect((await manage(people.coOwner)).statusCode).toBe(200);
    const byOwner = await cancel(people.coOwner);
    expect(byOwner.statusCode).toBe(200);
    expect(byOwner.data.status).toBe('canceled');
  });
});

describe('a test clock started in the past', () => {
  it('pays on that day: the invoice, the checkout and the subscription say so', async () => {
    const at = new Date('2024-11-20T09:30:00.000Z');
    const purchase = await subscribe('gaming', 'pam@example.com', at.toISOString());
    const [invoice] = await invoicesOf(purchase.subscriptionId);
    expect(near(invoice!.paid_at, at, 10_000)).toBe(true);
    expect(near(invoice!.period_start, at, 10_000)).toBe(true);
    expect(near(invoice!.period_end, new Date('2024-12-20T09:30:00.000Z'), 10_000)).toBe(true);

    const completed = (await published()).find(
      (event) => event.subject === 'billing.checkout.completed' && event.data.sessionId === purchase.sessionId,
    );
    expect(near(completed?.data.paidAt, at, 10_000)).toBe(true);
    const [paid] = await eventsOf(purchase.subscriptionId, 'billing.invoice.paid');
    expect(near(paid!.paidAt, at, 10_000)).toBe(true);
    const [activated] = await eventsOf(purchase.subscriptionId, 'billing.subscription.activated');
    expect(activated).toMatchObject({ planCode: 'gaming', monthlyCents: 1199 });
    expect(near(activated!.startedAt, at, 10_000)).toBe(true);
    expect(near(activated!.effectiveAt, at, 60_000)).toBe(true);
  });

  it('is refused once its checkout is paid (409), and for a clock that does not exist (404)', async () => {
    const purchase = await subscribe('personal', 'ike@example.com');
    const rpc = await admin();
    await expect(
      rpc.request(startClockRpc, { clock_id: purchase.clockId, at: '2023-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message:
        'This checkout is paid already, so its clock can no longer be set: it only moves forward now (advance-clock). Start a new checkout to begin at another time.',
    });
    const [invoice] = await invoicesOf(purchase.subscriptionId);
    expect(near(invoice!.paid_at, new Date(april), 10_000)).toBe(true);
    await expect(
      rpc.request(startClockRpc, { clock_id: '00000000-0000-4000-8000-000000000000', at: april }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a refund of a test-clock subscription is issued on its clock, not on real time', async () => {
    const purchase = await subscribe('personal', 'rey@example.com', '2025-06-03T08:00:00.000Z');
    const now = await advance(purchase.clockId, 2);
    const canceled = await purchase.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: purchase.subscriptionId,
    });
    expect(canceled.data).toMatchObject({ status: 'canceled', refunded_cents: 799, money_back: 'refunded' });
    const refund = await billingDb()
      .selectFrom('refunds')
      .select(['status', 'issued_at'])
      .where('subscription_id', '=', purchase.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(refund.status).toBe('issued');
    expect(near(refund.issued_at, now)).toBe(true);
    const issued = (await published()).find(
      (event) => event.subject === 'billing.refund.issued' && event.data.subscriptionId === purchase.subscriptionId,
    );
    expect(near(issued?.data.issuedAt, now)).toBe(true);
    expect(Date.now() - new Date(issued!.data.issuedAt).getTime()).toBeGreaterThan(300 * day);
    const [ended] = await eventsOf(purchase.subscriptionId, 'billing.subscription.canceled');
    expect(near(ended!.canceledAt, now)).toBe(true);
    expect(ended).toMatchObject({ monthlyCents: 799, effectiveAt: ended!.canceledAt });
  });
});

describe("billing's events for analytics", () => {
  it('every subscription event says when it started, when this state took effect and the price per month; every paid checkout when', async () => {
    const events = await published();
    const subscriptionEvents = events.filter((event) => event.subject.startsWith('billing.subscription.'));
    expect(new Set(subscriptionEvents.map((event) => event.subject))).toEqual(
      new Set(['billing.subscription.activated', 'billing.subscription.updated', 'billing.subscription.canceled']),
    );
    for (const { subject, data } of subscriptionEvents) {
      expect(data.startedAt, subject).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(data.effectiveAt, subject).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(data.monthlyCents, subject).toBeGreaterThan(0);
      expect(data, subject).toHaveProperty('pendingPlanCode');
      // On the subscription's clock: these purchases all began in the past.
      expect(new Date(data.effectiveAt).getTime(), subject).toBeLessThan(Date.now() - 100 * day);
    }
    const checkouts = events.filter((event) => event.subject === 'billing.checkout.completed');
    expect(checkouts.length).toBeGreaterThan(0);
    for (const { data } of checkouts) expect(new Date(data.paidAt).getTime()).toBeLessThan(Date.now() - 100 * day);
  });
});
