import { randomBytes } from 'node:crypto';
import type { ServiceDefinition } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { sql } from 'kysely';
import { purchaseClaimed } from '@qw/contracts';
import { billingService } from '@qw/billing';
import { provisioningService, type ProvisioningSettings } from '@qw/provisioning';
import { telemetryService } from '@qw/telemetry';
import { userIdOf } from './organizations.ts';
import { Client, confirmEmail, signUpConfirmed, type Stack } from './stack.ts';

/**
 * Billing, provisioning and telemetry, as `startStack({ extra })` wants them; device keys sealed
 * with `sealingKey` (a new one by default; a restored database needs the key it was sealed with);
 * `provisioning` adds to provisioning's settings (the bus identity folder for enrolment).
 */
export function deviceServices(
  publicUrl: string,
  mailUrl: string,
  sealingKey = randomBytes(32).toString('base64'),
  provisioning: Partial<ProvisioningSettings> = {},
): Array<ServiceDefinition<any>> {
  return [
    billingService({ PUBLIC_URL: publicUrl, BILLING_TEST_CLOCK: true, NODE_ENV: 'test' }),
    provisioningService({
      PRIVATE_KEY_ENCRYPTION_KEY: sealingKey,
      MAIL_URL: mailUrl,
      MAIL_FROM: 'Quietwire <no-reply@quietwire.test>',
      MAIL_DIR: 'var/mail-test',
      PROVISIONING_TEST_CLOCK: true,
      ...provisioning,
    }),
    telemetryService,
  ];
}

/** Buys a plan through the test checkout and claims it for a new, signed-in account. */
export async function customerWithPlan(
  stack: Stack,
  email: string,
  planCode = 'personal',
  password = 'correct horse battery',
): Promise<Client> {
  const client = new Client(stack.app, `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`);
  const step = (name: string, answer: Awaited<ReturnType<Client['call']>>, ok: number) => {
    if (answer.statusCode !== ok)
      throw new Error(`${name} failed: ${answer.statusCode} ${JSON.stringify(answer.data)}`);
    return answer;
  };
  const started = step(
    'checkout',
    await client.call('POST', '/api/checkout', { plan_code: planCode, quantity: 1 }),
    200,
  );
  step(
    'test payment',
    await client.call('POST', `/api/billing/test-checkout/${started.data.session_id}/pay`, {
      email,
      card_number: '4242424242424242',
    }),
    200,
  );
  step('sign-up', await client.call('POST', '/api/auth/signup', { email, password }), 201);
  // A Business claim answers 503 while identity is still making its organization (the gateway
  // waits a while first): claiming again answers the same purchase once it is there, as the
  // checkout page does. Anything else is a failure. It gives up after 20 s, inside the test's own
  // 30 s, so that a claim that never shows says where its event stood (claimTrail) instead of the
  // test timing out silently around it.
  const claim = await eventually(
    async () => {
      const answer = await client.call('POST', '/api/checkout/claim', { session_id: started.data.session_id, email });
      return answer.statusCode === 503 && answer.data?.error?.code === 'unavailable' ? undefined : answer;
    },
    20_000,
    250,
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}; ${await claimTrail(stack)}`);
  });
  if (claim.statusCode !== 200) throw new Error(`claim failed: ${claim.statusCode} ${JSON.stringify(claim.data)}`);
  return client;
}

/**
 * A person with a confirmed address, signed in, and their id: a customer who bought `plan` through
 * the test checkout, or an account signed up from `address`.
 */
export async function confirmedPerson(
  stack: Stack,
  email: string,
  from: { plan: string } | { address: string },
  password = 'correct horse battery',
): Promise<{ client: Client; id: string; email: string }> {
  const client =
    'plan' in from
      ? await confirmEmail(stack, email, password, await customerWithPlan(stack, email, from.plan, password))
      : await signUpConfirmed(stack, email, from.address, password);
  return { client, id: await userIdOf(client), email };
}

/**
 * Where billing's claim events stand on their way to identity's organizations, for a claim that
 * never showed: billing's outbox rows for them, identity's consumer of them (in this process and on
 * the server) and its inbox. A timeout then says which step held the event.
 */
async function claimTrail(stack: Stack): Promise<string> {
  const parts: string[] = [];
  const attempt = async (what: string, read: () => Promise<unknown>) => {
    try {
      parts.push(`${what} ${JSON.stringify(await read())}`);
    } catch (error) {
      parts.push(`${what} unreadable (${(error as Error).message})`);
    }
  };
  const billing = stack.services.billing;
  const identity = stack.services.identity!;
  const consumer = identity.consumers.find((c) => c.durableName.endsWith('purchase-claimed'));
  // A published row may be gone already (kept only for the relay's retention): none left unpublished
  // means billing has sent them all.
  await attempt('billing outbox, claims not yet published', async () =>
    billing
      ? (
          await sql<{ seq: string; attempts: number; last_error: string | null }>`
            select seq, attempts, last_error from outbox
            where subject = ${purchaseClaimed.subject} and published_at is null order by seq`.execute(billing.db)
        ).rows
      : 'no billing service in this stack',
  );
  await attempt('identity consumer here', async () => consumer?.describe() ?? 'none');
  await attempt('identity consumer on the server', async () => {
    if (!consumer) return 'none';
    const admin = await stack.connectAdmin();
    try {
      const info = await admin.jsm.consumers.info(admin.ns.stream('billing'), consumer.durableName);
      const { num_pending, num_ack_pending, num_redelivered, num_waiting, delivered, ack_floor } = info;
      return { num_pending, num_ack_pending, num_redelivered, num_waiting, delivered, ack_floor };
    } finally {
      await admin.close();
    }
  });
  // Who is on the stack's bus (a second reader of identity's durable would hold its messages), and
  // whether the server still has the subscription identity's reader is answered on (a pull whose
  // subscription is gone keeps getting messages on NATS 2.9, which go nowhere).
  await attempt('connections on the bus', async () => {
    if (!stack.testBus.connections) return 'not reported by this bus';
    const connections = await stack.testBus.connections();
    const inbox = consumer?.describe().inbox;
    return {
      clients: connections.map(
        ({ name, subscriptions }) => `${name} (${subscriptions.filter((s) => !s.startsWith('$')).length} subs)`,
      ),
      readerInboxSubscribed: inbox
        ? connections.some((c) => c.name === 'identity' && c.subscriptions.includes(inbox))
        : 'no reading',
    };
  });
  await attempt('identity inbox', async () =>
    consumer
      ? (
          await sql<{ n: string }>`select count(*) as n from inbox where consumer = ${consumer.durableName}`.execute(
            identity.db,
          )
        ).rows[0]
      : 'none',
  );
  return parts.join('; ');
}

/**
 * Adds a device at `url` (the person's own list, or an organization's) as soon as the product
 * takes it: right after a purchase, provisioning may not have the plan yet. Answers the device.
 */
export async function deviceAdded(client: Client, body: Record<string, unknown>, url = '/api/devices') {
  const created = await eventually(
    async () => {
      const response = await client.call('POST', url, body);
      return response.statusCode === 201 ? response : undefined;
    },
    15_000,
    100,
  );
  return created.data.device;
}

/**
 * Confirms the address as its owner does: the mailed link, then choosing the password on the step
 * after it (a first verification signs nobody in); from then on the address counts as verified.
 */
export async function verifyEmail(stack: Stack, email: string, password = 'correct horse battery'): Promise<void> {
  await confirmEmail(stack, email, password);
}

/**
 * Signs `client` in again after its session ended (a first verification ends the account's other
 * sessions, and their access tokens within a second): the token it held is dropped first, as the
 * web app drops one that is refused.
 */
export async function signInAgain(client: Client, email: string, password = 'correct horse battery'): Promise<void> {
  client.accessToken = undefined;
  const answer = await client.call('POST', '/api/auth/login', { email, password });
  if (answer.statusCode !== 200) throw new Error(`sign-in again: ${answer.statusCode} ${answer.body}`);
}
