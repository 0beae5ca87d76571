import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Client, startStack, type Stack } from './support/stack.ts';

/**
 * The limits hold when the requests come all at once: each check and its count are one step
 * (libs/platform/src/limits), so parallel requests at a limit of L let exactly L through. Through
 * the real gateway and identity.
 */
let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'ratelimitrace' });
});
afterAll(async () => {
  await stack?.stop();
});

const identityDb = () => stack.services.identity!.db;

const statuses = (answers: Array<{ statusCode: number }>) => {
  const counted: Record<number, number> = {};
  for (const { statusCode } of answers) counted[statusCode] = (counted[statusCode] ?? 0) + 1;
  return counted;
};

describe('parallel requests at a limit', () => {
  it('sign-in: of 12 wrong passwords sent at once for one account from one address, 5 are checked and 7 refused', async () => {
    const address = '198.51.100.200';
    const owner = new Client(stack.app, '198.51.100.199');
    expect((await owner.call('POST', '/api/auth/signup', { email: 'dora@example.com', password })).statusCode).toBe(
      201,
    );
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        new Client(stack.app, address).call('POST', '/api/auth/login', {
          email: 'dora@example.com',
          password: `wrong guess number ${i}`,
        }),
      ),
    );
    expect(statuses(answers)).toEqual({ 401: 5, 429: 7 });
    // The right password from here waits too; from the owner's own address it works.
    const here = await new Client(stack.app, address).call('POST', '/api/auth/login', {
      email: 'dora@example.com',
      password,
    });
    expect(here.statusCode).toBe(429);
    const home = await owner.call('POST', '/api/auth/login', { email: 'dora@example.com', password });
    expect(home.statusCode).toBe(200);
  });

  it('sign-in: right passwords sent at once are not counted as failures', async () => {
    const address = '198.51.100.210';
    const client = new Client(stack.app, address);
    expect((await client.call('POST', '/api/auth/signup', { email: 'eve@example.com', password })).statusCode).toBe(
      201,
    );
    const failures = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from rate_events where key like 'signin:%'`.execute(
          identityDb(),
        )
      ).rows[0]!.n;
    const before = await failures();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        new Client(stack.app, address).call('POST', '/api/auth/login', { email: 'eve@example.com', password }),
      ),
    );
    expect(statuses(answers)).toEqual({ 200: 8 });
    expect(await failures()).toBe(before);
  });

  it('contact: of 10 messages sent at once from one address, 5 are stored and 5 refused', async () => {
    const address = '198.51.100.220';
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        new Client(stack.app, address).call('POST', '/api/contact', {
          email: 'many@example.com',
          message: `Parallel message number ${i}.`,
        }),
      ),
    );
    expect(statuses(answers)).toEqual({ 201: 5, 429: 5 });
    const stored = await sql<{
      n: number;
    }>`select count(*)::int as n from contact_messages where email = 'many@example.com'`.execute(identityDb());
    expect(stored.rows[0]!.n).toBe(5);
  });

  it('sign-up: with 2 of 20 left for an address this hour, 6 sign-ups sent at once make 2 accounts', async () => {
    const client = new Client(stack.app, '198.51.100.230');
    expect((await client.call('POST', '/api/auth/signup', { email: 'first@race.example', password })).statusCode).toBe(
      201,
    );
    // 17 more sign-ups from this address, counted without paying for 17 password hashes.
    await sql`insert into rate_events (key, at)
      select key, now() from (select key from rate_events where key like 'signup:address:%' order by seq desc limit 1) newest,
      generate_series(1, 17)`.execute(identityDb());
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        new Client(stack.app, '198.51.100.230').call('POST', '/api/auth/signup', {
          email: `racer${i}@race.example`,
          password,
        }),
      ),
    );
    expect(statuses(answers)).toEqual({ 201: 2, 429: 4 });
    const made = await sql<{ n: number }>`select count(*)::int as n from users where email like 'racer%'`.execute(
      identityDb(),
    );
    expect(made.rows[0]!.n).toBe(2);
  });
});
