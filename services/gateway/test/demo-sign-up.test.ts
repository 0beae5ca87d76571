import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { demoSignUpRpc } from '@qw/contracts';
import { RpcClient } from '@qw/platform';
import { eventually } from '@qw/testkit';
import { Client, startStack, type Stack } from './support/stack.ts';

/**
 * identity.rpc.demo-sign-up, which the demo history uses to make its customers on past days:
 * answered only with DEMO_TOOLS on, asked on the bus's admin connection (never by the gateway).
 */
type Published = { subject: string; data: Record<string, any> };

async function identityEvents(stack: Stack): Promise<Published[]> {
  const db = stack.services.identity!.db;
  await eventually(
    async () => (await sql<{ n: number }>`select count(*)::int as n from outbox`.execute(db)).rows[0]!.n === 0,
  );
  const bus = await stack.connectAdmin();
  const stream = bus.ns.stream('identity');
  const { state } = await bus.jsm.streams.info(stream);
  const events: Published[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await bus.jsm.streams.getMessage(stream, { seq });
    if (message) events.push({ subject: message.subject, data: (message.json() as { data: any }).data });
  }
  return events;
}

describe('demo sign-up with DEMO_TOOLS on', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ label: 'demosignup', identity: { DEMO_TOOLS: true } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const users = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from users`.execute(stack.services.identity!.db)).rows[0]!.n;

  it('makes an account on a past day, its address confirmed, with a password nobody knows; its events say that day', async () => {
    const rpc = new RpcClient(await stack.connectAdmin());
    const registeredAt = '2024-12-01T10:00:00.000Z';
    const { user_id } = await rpc.request(demoSignUpRpc, {
      email: 'Demo.Ann@Example.com',
      full_name: ' Ann Demo ',
      registered_at: registeredAt,
    });
    const user = await stack.services
      .identity!.db.selectFrom('users')
      .innerJoin('profiles', 'profiles.id', 'users.id')
      .select([
        'users.email',
        'users.created_at',
        'users.email_verified_at',
        'profiles.full_name',
        'profiles.account_type',
      ])
      .where('users.id', '=', user_id)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({
      email: 'demo.ann@example.com',
      created_at: new Date(registeredAt),
      email_verified_at: new Date(registeredAt),
      full_name: 'Ann Demo',
      account_type: 'personal',
    });
    const events = (await identityEvents(stack)).filter((event) => event.data.userId === user_id);
    expect(events).toEqual([
      { subject: 'identity.user.registered', data: { userId: user_id, accountType: 'personal', registeredAt } },
      { subject: 'identity.user.verified', data: { userId: user_id, verifiedAt: registeredAt } },
    ]);
    // Nobody can sign in with a password they guess; the owner of the mailbox could reset it.
    const signIn = await new Client(stack.app).call('POST', '/api/auth/login', {
      email: 'demo.ann@example.com',
      password: 'correct horse battery',
    });
    expect(signIn.statusCode).toBe(401);
  });

  it('refuses a taken address (409 already_exists) and a day in the future (400), writing nothing', async () => {
    const rpc = new RpcClient(await stack.connectAdmin());
    await new Client(stack.app).call('POST', '/api/auth/signup', {
      email: 'taken@example.com',
      password: 'correct horse battery',
    });
    const before = await users();
    const eventsBefore = (await identityEvents(stack)).length;
    await expect(
      rpc.request(demoSignUpRpc, { email: 'TAKEN@example.com', registered_at: '2025-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({
      code: 'already_exists',
      message: 'A user with this email address has already been registered.',
    });
    await expect(
      rpc.request(demoSignUpRpc, {
        email: 'later@example.com',
        registered_at: new Date(Date.now() + 86_400_000).toISOString(),
      }),
    ).rejects.toMatchObject({ code: 'validation_failed', message: 'registered_at must not be in the future.' });
    expect(await users()).toBe(before);
    expect((await identityEvents(stack)).length).toBe(eventsBefore);
  });

  it("is not the gateway's to ask", async () => {
    await expect(
      new RpcClient(stack.bus).request(demoSignUpRpc, {
        email: 'gateway@example.com',
        registered_at: '2025-01-01T00:00:00.000Z',
      }),
      // Its own client refuses before sending; the server would too (bus-permissions.test.ts).
    ).rejects.toThrow(/gateway may not ask it/);
    expect(
      await stack.services
        .identity!.db.selectFrom('users')
        .select('id')
        .where('email', '=', 'gateway@example.com')
        .executeTakeFirst(),
    ).toBeUndefined();
  });
});

describe('demo sign-up with DEMO_TOOLS off (the default)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ label: 'demosignupoff' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers not_found and makes nobody', async () => {
    const rpc = new RpcClient(await stack.connectAdmin());
    await expect(
      rpc.request(demoSignUpRpc, { email: 'off@example.com', registered_at: '2025-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({ code: 'not_found', message: 'The demo tools are off (DEMO_TOOLS).' });
    const users = await sql<{ n: number }>`select count(*)::int as n from users`.execute(stack.services.identity!.db);
    expect(users.rows[0]!.n).toBe(0);
  });
});
