import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsedMail } from 'mailparser';
import { advanceClockRpc, startClockRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { billingService } from '@qw/billing';
import { Client, startStack, type Stack } from './support/stack.ts';
import { joinOrganization, ownOrganization } from './support/organizations.ts';

/**
 * Billing's mails (issue #15) through the real gateway, billing and identity, read from the SMTP
 * capture: a receipt for every payment (first checkout, renewal, upgrade), and notices for a
 * renewal that failed, a plan set to end, a plan that ended and a refund. Then the receipt route:
 * its person, an organization's owners and admins; nobody else.
 */
let stack: Stack;
const password = 'correct horse battery';
const april = '2025-04-01T00:00:00.000Z';

beforeAll(async () => {
  stack = await startStack({
    label: 'billingmail',
    extra: (publicUrl) => [billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' })],
  });
});
afterAll(async () => {
  await stack?.stop();
});

const admin = async () => new RpcClient(await stack.connectAdmin());
let addresses = 0;
const buyerAddress = () => `198.51.100.${++addresses}`;

type Purchase = { client: Client; clockId: string; subscriptionId: string };

/** Buys a plan with `card` on a clock started on 2025-04-01, signs up with the paid address and claims it. */
async function subscribe(planCode: string, email: string, card = '4242 4242 4242 4242'): Promise<Purchase> {
  const started = await new Client(stack.app, buyerAddress()).call('POST', '/api/checkout', {
    plan_code: planCode,
    quantity: 1,
  });
  expect(started.statusCode).toBe(200);
  const sessionId: string = started.data.session_id;
  const page = await new Client(stack.app).call('GET', `/api/billing/test-checkout/${sessionId}`);
  const clockId: string = page.data.test_clock_id;
  await (await admin()).request(startClockRpc, { clock_id: clockId, at: april });
  const paid = await new Client(stack.app).call('POST', `/api/billing/test-checkout/${sessionId}/pay`, {
    email,
    card_number: card,
  });
  expect(paid.statusCode).toBe(200);
  const client = new Client(stack.app, buyerAddress());
  await client.call('POST', '/api/auth/signup', { email, password });
  const claim = await client.call('POST', '/api/checkout/claim', { session_id: sessionId, email });
  expect(claim.statusCode).toBe(200);
  return { client, clockId, subscriptionId: claim.data.subscription_id };
}

const advance = async (clockId: string, days: number) =>
  (await admin()).request(advanceClockRpc, { clock_id: clockId, days });

const to = (mail: ParsedMail) => (mail.to as { text: string } | undefined)?.text;

/** The mails `email` got with this subject, once there are `count` of them. */
async function mailsTo(email: string, subject: RegExp, count = 1): Promise<ParsedMail[]> {
  const matching = () => stack.smtp.messages.filter((m) => to(m) === email && subject.test(m.subject ?? ''));
  await stack.smtp.waitFor(() => matching().length >= count, 10_000);
  return matching();
}

async function invoices(client: Client, orgId?: string) {
  const answer = await client.call('GET', orgId ? `/api/billing?org_id=${orgId}` : '/api/billing');
  expect(answer.statusCode).toBe(200);
  return answer.data.invoices as Array<{ id: string; number: string; amount_cents: number; status: string }>;
}

describe('receipts by mail', () => {
  it('mails a receipt for the first payment, each renewal and an upgrade, with number, plan, what it is for, amount, card and billing details', async () => {
    const email = 'rita@example.com';
    const rita = await subscribe('personal', email);
    const [first] = await mailsTo(email, /^Your Quietwire receipt QW-\d{6}$/);
    const [paid] = await invoices(rita.client);
    expect(paid!.number).toMatch(/^QW-\d{6}$/);
    expect(first!.subject).toBe(`Your Quietwire receipt ${paid!.number}`);
    expect(first!.text).toContain(`Receipt number: ${paid!.number}`);
    expect(first!.text).toContain('Date: 2025-04-01');
    expect(first!.text).toContain('Plan: Quietwire Personal');
    expect(first!.text).toContain('For: Personal plan, first month');
    expect(first!.text).not.toContain('Billed to:');
    expect(first!.text).toContain('Amount paid: $7.99 USD');
    expect(first!.text).toContain('Paid with: Visa ending in 4242');
    expect(first!.text).toContain(`${stack.publicUrl}/billing/invoices/${paid!.id}`);
    expect(first!.html).toContain('Your receipt');

    await advance(rita.clockId, 31);
    const renewals = await mailsTo(email, /^Your Quietwire receipt/, 2);
    const renewal = renewals.find((m) => m !== first)!;
    expect(renewal.text).toContain('For: Personal plan, monthly renewal');
    expect(renewal.text).toContain('Date: 2025-05-01');
    expect(renewal.text).toContain('Paid with: Visa ending in 4242');

    // Billing details set now appear on every receipt from then on, as on the printable one.
    const details = await rita.client.call('POST', '/api/billing/details', {
      company_name: 'Rita Reads Ltd',
      address: '1 Quay Street\nDublin',
      vat_id: 'IE 1234567 T',
    });
    expect(details.statusCode).toBe(200);
    const upgrade = await rita.client.call('POST', '/api/billing/change-plan', {
      subscription_id: rita.subscriptionId,
      plan_code: 'gaming',
    });
    expect(upgrade.statusCode).toBe(200);
    const all = await mailsTo(email, /^Your Quietwire receipt/, 3);
    const proration = all.find((m) => m.text?.includes('For: Upgrade'))!;
    expect(proration.text).toMatch(
      /For: Upgrade from Personal to Gaming, prorated for \d{1,2} \w{3} – \d{1,2} \w{3}\n/,
    );
    expect(proration.text).toContain('Plan: Quietwire Gaming');
    expect(proration.text).toContain('Billed to: Rita Reads Ltd, 1 Quay Street, Dublin, VAT ID: IE1234567T');
    // The printable receipt says the same.
    const printable = await rita.client.call(
      'GET',
      `/api/billing/invoices/${(await invoices(rita.client)).find((i) => proration.subject?.includes(i.number))!.id}`,
    );
    expect(proration.text).toContain(`For: ${printable.data.description}`);
    expect(proration.text).toContain(`Amount paid: $${(upgrade.data.charged_cents / 100).toFixed(2)} USD`);
    // Three payments, three numbers, each once.
    const numbers = all.map((m) => /QW-\d{6}/.exec(m.subject ?? '')![0]);
    expect(new Set(numbers).size).toBe(3);
    expect((await invoices(rita.client)).map((i) => i.number).sort()).toEqual([...numbers].sort());
  });

  it('mails the money-back refund and the end of the plan when cancelled within 7 days', async () => {
    const email = 'moe@example.com';
    const moe = await subscribe('gaming', email);
    const cancel = await moe.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: moe.subscriptionId,
    });
    expect(cancel.data).toMatchObject({ money_back: 'refunded', status: 'canceled' });
    const [ended] = await mailsTo(email, /^Your Quietwire plan has ended$/);
    expect(ended!.text).toContain('Your Quietwire Gaming plan ended on 2025-04-01.');
    expect(ended!.text).toContain('/app/personal/billing');
    const [refund] = await mailsTo(email, /^Your Quietwire refund$/);
    const [invoice] = await invoices(moe.client);
    expect(refund!.text).toContain(
      `We refunded $${(cancel.data.refunded_cents / 100).toFixed(2)} USD for receipt ${invoice!.number}`,
    );
    expect(refund!.text).toContain(`/billing/invoices/${invoice!.id}`);
    // The refund shows on the receipt.
    const receipt = await moe.client.call('GET', `/api/billing/invoices/${invoice!.id}`);
    expect(receipt.data).toMatchObject({ status: 'refunded', refunds: [{ amount_cents: cancel.data.refunded_cents }] });
  });

  it('mails a cancel after the money-back window once, and the end of the plan at the period end', async () => {
    const email = 'cass@example.com';
    const cass = await subscribe('personal', email);
    await advance(cass.clockId, 10);
    const cancel = await cass.client.call('POST', '/api/billing/test-portal/cancel', {
      subscription_id: cass.subscriptionId,
    });
    expect(cancel.data).toMatchObject({ cancel_at_period_end: true });
    const [notice] = await mailsTo(email, /^Your Quietwire plan is canceled$/);
    expect(notice!.text).toContain('It stays active until 2025-05-01');
    await advance(cass.clockId, 25);
    const [ended] = await mailsTo(email, /^Your Quietwire plan has ended$/);
    expect(ended!.text).toContain('ended on 2025-05-01');
    // The cancel notice went once, whatever other updates said since.
    expect(await mailsTo(email, /^Your Quietwire plan is canceled$/)).toHaveLength(1);
    // No renewal was charged.
    expect(await mailsTo(email, /^Your Quietwire receipt/)).toHaveLength(1);
  });

  it('mails a notice when a renewal fails (test card 4000 0000 0000 0341)', async () => {
    const email = 'finn@example.com';
    const finn = await subscribe('personal', email, '4000 0000 0000 0341');
    await mailsTo(email, /^Your Quietwire receipt/);
    await advance(finn.clockId, 31);
    const [failed] = await mailsTo(email, /^Your Quietwire renewal payment failed$/);
    expect(failed!.text).toContain('the payment of $7.99 USD on 2025-05-01');
    expect(failed!.text).toContain('Visa ending in 0341');
    expect(failed!.text).toContain('/app/personal/billing');
    const billing = await finn.client.call('GET', '/api/billing');
    expect(billing.data.subscription.status).toBe('past_due');
    expect(billing.data.invoices.map((i: { status: string }) => i.status)).toEqual(['failed', 'paid']);
    // Advancing within the same period neither charges nor mails again.
    await advance(finn.clockId, 1);
    expect(await mailsTo(email, /^Your Quietwire renewal payment failed$/)).toHaveLength(1);
  });

  it('pays a failed renewal with the card updated in the portal, mails its receipt, and refuses bad cards and strangers', async () => {
    const email = 'gwen@example.com';
    const gwen = await subscribe('personal', email, '4000 0000 0000 0341');
    await mailsTo(email, /^Your Quietwire receipt/);
    await advance(gwen.clockId, 31);
    await mailsTo(email, /^Your Quietwire renewal payment failed$/);
    const before = await gwen.client.call('GET', '/api/billing');
    expect(before.data.subscription).toMatchObject({ status: 'past_due', card: 'Visa ending in 0341' });

    const card = (card_number: string, client = gwen.client) =>
      client.call('POST', '/api/billing/test-portal/card', { subscription_id: gwen.subscriptionId, card_number });
    // A typo, the card that always declines, and someone else's subscription change nothing.
    expect((await card('4242 4242 4242 4241')).data.error).toMatchObject({ code: 'validation_failed' });
    expect((await card('4000 0000 0000 0002')).data.error).toMatchObject({ code: 'payment_declined' });
    const stranger = await subscribe('personal', 'hal@example.com');
    expect((await card('4242 4242 4242 4242', stranger.client)).statusCode).toBe(404);
    expect((await gwen.client.call('GET', '/api/billing')).data).toEqual(before.data);

    const changed = await card('5555 5555 5555 4444');
    expect(changed.statusCode).toBe(200);
    expect(changed.data).toEqual({ card: 'Mastercard ending in 4444', settled_cents: 799 });
    const after = await gwen.client.call('GET', '/api/billing');
    expect(after.data.subscription).toMatchObject({ status: 'active', card: 'Mastercard ending in 4444' });
    expect(after.data.invoices.map((i: { status: string }) => i.status)).toEqual(['paid', 'paid']);
    const receipts = await mailsTo(email, /^Your Quietwire receipt/, 2);
    const renewal = receipts.find((m) => m.text?.includes('monthly renewal'))!;
    expect(renewal.text).toContain('Paid with: Mastercard ending in 4444');
    expect(renewal.text).toContain('Amount paid: $7.99 USD');
    // The next renewal is charged to the new card.
    await advance(gwen.clockId, 31);
    const next = await mailsTo(email, /^Your Quietwire receipt/, 3);
    expect(next.filter((m) => m.text?.includes('Mastercard ending in 4444'))).toHaveLength(2);
  });
});

describe('GET /api/billing/invoices/:id', () => {
  it("answers its person's receipt, and 404 to another customer, for an unknown or malformed id", async () => {
    const ivy = await subscribe('personal', 'ivy@example.com');
    const [invoice] = await invoices(ivy.client);
    const own = await ivy.client.call('GET', `/api/billing/invoices/${invoice!.id}`);
    expect(own.statusCode).toBe(200);
    expect(own.headers['cache-control']).toBe('no-store');
    expect(own.data).toMatchObject({
      id: invoice!.id,
      number: invoice!.number,
      status: 'paid',
      plan_code: 'personal',
      plan_name: 'Personal',
      description: 'Personal plan, first month',
      amount_cents: 799,
      currency: 'USD',
      buyer_email: 'ivy@example.com',
      card: 'Visa ending in 4242',
      refunds: [],
      org_id: null,
    });
    expect(own.data.paid_at.slice(0, 10)).toBe('2025-04-01');
    const other = await subscribe('personal', 'otto@example.com');
    for (const url of [
      `/api/billing/invoices/${invoice!.id}`,
      '/api/billing/invoices/0190f0d0-0000-7000-8000-000000000000',
      '/api/billing/invoices/not-an-id',
    ]) {
      const answer = await other.client.call('GET', url);
      expect(answer.statusCode).toBe(404);
      expect(answer.data.error).toMatchObject({ code: 'not_found', message: 'Invoice not found.' });
    }
    expect((await new Client(stack.app).call('GET', `/api/billing/invoices/${invoice!.id}`)).statusCode).toBe(401);
  });

  it("answers an organization's receipt to its owners and admins, 404 to its members", async () => {
    const owner = await subscribe('business10', 'olga@example.com');
    const orgId = await ownOrganization(owner.client);
    const [invoice] = await invoices(owner.client, orgId);
    const people: Record<'admin' | 'member', Client> = {
      admin: new Client(stack.app, buyerAddress()),
      member: new Client(stack.app, buyerAddress()),
    };
    for (const role of ['admin', 'member'] as const) {
      const email = `${role}-of-olga@example.com`;
      await people[role].call('POST', '/api/auth/signup', { email, password });
      await joinOrganization(stack, orgId, owner.client, { client: people[role], email }, role);
    }
    const url = `/api/billing/invoices/${invoice!.id}`;
    const byOwner = await owner.client.call('GET', url);
    expect(byOwner.statusCode).toBe(200);
    expect(byOwner.data).toMatchObject({ org_id: orgId, plan_name: 'Business 10', buyer_email: 'olga@example.com' });
    expect((await people.admin.call('GET', url)).statusCode).toBe(200);
    const byMember = await people.member.call('GET', url);
    expect(byMember.statusCode).toBe(404);
    expect(byMember.data.error.code).toBe('not_found');
  });
});
