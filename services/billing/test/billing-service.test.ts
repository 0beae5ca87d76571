import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advanceClockRpc,
  billingOverviewRpc,
  checkoutCompleted,
  claimCheckoutRpc,
  createCheckoutRpc,
  type EventContract,
  getMeRpc,
  manageBillingRpc,
  membershipRpc,
  resumeSubscriptionRpc,
  startClockRpc,
  subscriptionActivated,
  subscriptionCanceled,
  testCheckoutInfoRpc,
  testCheckoutPayRpc,
  testPortalCancelRpc,
} from '@qw/contracts';
import { callerTokenSigner, endpoint, RpcClient } from '@qw/platform';
import { eventually, type ServiceAlone, startServiceAlone, testCallerKeys } from '@qw/testkit';
import { billingService } from '../src/app.ts';

/**
 * The billing service on its own with the local test payment provider: a database and a NATS
 * server of this file (the product's permissions on), its RPCs asked as the gateway asks them
 * with signed callers, and its events read back from its own stream. Identity, which billing asks
 * who the caller is (get-me) and what their role in an organization is (membership), is a small
 * test double that answers from this file's people. The pages end to end stay in the gateway's
 * billing tests.
 */
const april = '2025-04-01T00:00:00.000Z';
const people = new Map<string, string>();
const roles = new Map<string, 'owner' | 'admin' | 'member'>();
const newPerson = (name: string) => {
  const id = randomUUID();
  people.set(id, `${name}-${id.slice(0, 8)}@example.com`);
  return id;
};
const [ann, ben, olga, max, stranger] = ['ann', 'ben', 'olga', 'max', 'stranger'].map(newPerson) as [
  string,
  string,
  string,
  string,
  string,
];

let alone: ServiceAlone;
let rpc: RpcClient;
let operatorRpc: RpcClient;
const sign = callerTokenSigner(testCallerKeys.privateKey);
const as = (userId: string, accountType = 'personal') =>
  sign({ userId, accountType, isAdmin: false, emailVerified: true });

/** The newest event of that subject on billing's stream, once `matches` says it is the one awaited. */
async function announced<T>(contract: EventContract, matches: (data: T) => boolean): Promise<T> {
  return eventually(async () => {
    const data = (await alone.lastEvent<T>(contract))?.data;
    return data && matches(data) ? data : undefined;
  });
}

let addresses = 0;
/** Pays a plan on the test provider's page with a clock started in April, and claims it as `userId`. */
async function buy(userId: string, planCode: string) {
  addresses += 1;
  const started = await rpc.request(createCheckoutRpc, {
    plan_code: planCode,
    quantity: 1,
    address_key: `test-address-${addresses}`,
  });
  const { test_clock_id: clockId } = await rpc.request(testCheckoutInfoRpc, { session_id: started.session_id });
  await operatorRpc.request(startClockRpc, { clock_id: clockId!, at: april });
  const email = people.get(userId)!;
  await rpc.request(testCheckoutPayRpc, { session_id: started.session_id, email, card_number: '4242 4242 4242 4242' });
  const completed = await announced<{ sessionId: string; planCode: string }>(
    checkoutCompleted,
    (data) => data.sessionId === started.session_id,
  );
  expect(completed.planCode).toBe(planCode);
  const claim = await rpc.request(claimCheckoutRpc, { session_id: started.session_id, email }, as(userId));
  return { clockId: clockId!, ...claim };
}

beforeAll(async () => {
  alone = await startServiceAlone('billing-service');
  operatorRpc = new RpcClient(alone.admin);
  // Identity as billing asks it: who the caller is, and their role in an organization.
  await alone.serve('identity', [
    endpoint(getMeRpc, async (_data, caller) => {
      const id = caller.userId!;
      const email = people.get(id)!;
      return {
        user: { id, email, created_at: new Date().toISOString() },
        profile: { id, email, full_name: null, avatar_url: null, account_type: 'personal', role: 'user' },
        role: 'user',
        is_admin: false,
        email_verified: true,
        mfa_enabled: false,
        org_member: false,
      };
    }),
    endpoint(membershipRpc, async (data) => ({
      role: roles.get(`${data.org_id}:${data.user_id}`) ?? null,
      org_active: true,
      plan: 'business10',
    })),
  ]);
  await alone.launch(
    billingService({ PUBLIC_URL: 'http://localhost:8080', BILLING_TEST_CLOCK: true, NODE_ENV: 'test' }),
  );
  rpc = new RpcClient(await alone.connect('gateway'));
}, 120_000);

afterAll(() => alone?.stop());

describe('checkout, payment and claim', () => {
  it('a paid checkout is announced, its claim makes the buyer’s subscription and says so on billing’s stream', async () => {
    const purchase = await buy(ann, 'personal');
    expect(purchase).toMatchObject({ account_type: 'personal', org_id: null });
    const activated = await announced<{ subscriptionId: string; userId: string; planCode: string; status: string }>(
      subscriptionActivated,
      (data) => data.subscriptionId === purchase.subscription_id,
    );
    expect(activated).toMatchObject({ userId: ann, planCode: 'personal', status: 'active' });
    const overview = await rpc.request(billingOverviewRpc, {}, as(ann));
    expect(overview.subscription).toMatchObject({ plan: 'personal', status: 'active', cancel_at_period_end: false });
    expect(overview.invoices).toHaveLength(1);
    expect(overview.provider).toBe('test');
    // Nobody else sees it.
    expect((await rpc.request(billingOverviewRpc, {}, as(stranger))).subscription).toBeNull();
  });
});

describe('cancel and resume, through the RPCs', () => {
  it('within 7 days a cancel refunds and ends the plan at once; an ended plan cannot be resumed', async () => {
    const purchase = await buy(ben, 'personal');
    const canceled = await rpc.request(testPortalCancelRpc, { subscription_id: purchase.subscription_id }, as(ben));
    expect(canceled).toMatchObject({ money_back: 'refunded', status: 'canceled' });
    expect(canceled.refunded_cents).toBeGreaterThan(0);
    await announced<{ subscriptionId: string; userId: string }>(
      subscriptionCanceled,
      (data) => data.subscriptionId === purchase.subscription_id && data.userId === ben,
    );
    await expect(
      rpc.request(resumeSubscriptionRpc, { subscription_id: purchase.subscription_id }, as(ben)),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: 'This plan has ended and cannot be resumed. Choose a plan in Billing to subscribe again.',
    });
  });

  it('after 7 days a cancel runs to the period end; only its owner resumes it, once', async () => {
    const rosa = newPerson('rosa');
    const purchase = await buy(rosa, 'personal');
    await operatorRpc.request(advanceClockRpc, { clock_id: purchase.clockId, days: 8 });
    const canceled = await rpc.request(testPortalCancelRpc, { subscription_id: purchase.subscription_id }, as(rosa));
    expect(canceled).toMatchObject({ cancel_at_period_end: true, refunded_cents: 0, money_back: 'none' });
    await expect(
      rpc.request(resumeSubscriptionRpc, { subscription_id: purchase.subscription_id }, as(stranger)),
    ).rejects.toMatchObject({ code: 'not_found' });
    const resumed = await rpc.request(resumeSubscriptionRpc, { subscription_id: purchase.subscription_id }, as(rosa));
    expect(resumed.subscription).toMatchObject({ status: 'active', cancel_at_period_end: false, plan: 'personal' });
    await expect(
      rpc.request(resumeSubscriptionRpc, { subscription_id: purchase.subscription_id }, as(rosa)),
    ).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('an organization’s billing, as identity says who is who in it', () => {
  it('a Business purchase makes an organization; its owner sees the plan, a member and an outsider are refused', async () => {
    const purchase = await buy(olga, 'business10');
    expect(purchase.org_id).not.toBeNull();
    const orgId = purchase.org_id!;
    roles.set(`${orgId}:${olga}`, 'owner');
    roles.set(`${orgId}:${max}`, 'member');
    const overview = await rpc.request(billingOverviewRpc, { org_id: orgId }, as(olga, 'business'));
    expect(overview.subscription).toMatchObject({ plan: 'business10', status: 'active' });
    await expect(rpc.request(billingOverviewRpc, { org_id: orgId }, as(max, 'business'))).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Only owners and admins of the organization see its plan and invoices.',
    });
    await expect(
      rpc.request(manageBillingRpc, { org_id: orgId, return_path: '/billing' }, as(max, 'business')),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(rpc.request(billingOverviewRpc, { org_id: orgId }, as(stranger))).rejects.toMatchObject({
      code: 'not_found',
      message: 'Organization not found.',
    });
  });
});
