import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsService } from '@qw/analytics';
import { authorityMaxAgeMs } from '../src/auth/authority-cache.ts';
import { Client, signUpConfirmed, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceAdded, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';

/**
 * Issue #20 item 2: authority changes take effect within a second everywhere. An admin taken off
 * the admin list keeps an access token that still says admin for up to 15 minutes; the gateway
 * asks identity for the person's rights (cached at most a second) and signs the caller assertion
 * from that answer, so every service refuses the console at once, and the removed admin's
 * sessions are ended.
 */
const password = 'correct horse battery';
const rootEmail = 'root@quietwire.test';
const bettyEmail = 'betty@example.com';

let stack: Stack;
let root: Client;
let betty: Client;
let deviceId: string;

type Answer = Awaited<ReturnType<Client['call']>>;
const status = (answer: Answer) => ({ status: answer.statusCode, code: answer.data?.error?.code });

/** The four console requests of the issue, as `client` makes them. */
async function consoleAnswers(client: Client): Promise<Array<{ status: number; code: string | undefined }>> {
  return [
    status(await client.call('GET', '/api/admin/devices')),
    status(await client.call('GET', '/api/admin/overview')),
    status(await client.call('GET', '/api/admin/analytics/mrr')),
    status(await client.call('POST', '/api/admin-device', { action: 'suspend', deviceId })),
  ];
}

beforeAll(async () => {
  stack = await startStack({
    label: 'authority-freshness',
    adminEmails: [rootEmail],
    extra: (url, mail) => [...deviceServices(url, mail), analyticsService({ checkEveryMs: 200, retiredGraceMs: 500 })],
  });
  await registerTestNode(stack, 'authority-node');
  root = await signUpConfirmed(stack, rootEmail, '198.51.100.31', password);
  betty = await signUpConfirmed(stack, bettyEmail, '198.51.100.32', password);
  const customer = await customerWithPlan(stack, 'carl@example.com');
  deviceId = (await deviceAdded(customer, { name: 'Carl laptop', platform: 'linux' })).id;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe('an admin taken off the admin list', () => {
  it('loses the console within a second, whatever the access token says, and every session ends', async () => {
    const added = await root.call('POST', '/api/admin/admin-emails', { email: bettyEmail });
    expect(added.statusCode).toBe(201);
    const refreshed = await betty.call('POST', '/api/auth/refresh');
    expect(refreshed.data.user.is_admin).toBe(true);
    const refreshCookies = new Map(betty.cookies);
    // While on the list: all four answer.
    expect((await consoleAnswers(betty)).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);

    const removed = await root.call('DELETE', `/api/admin/admin-emails/${encodeURIComponent(bettyEmail)}`);
    expect(removed.statusCode).toBe(204);
    // Her access token is still live and still says admin.
    const claims = JSON.parse(Buffer.from(betty.accessToken!.split('.')[1]!, 'base64url').toString());
    expect(claims.adm).toBe(true);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now() + 60_000);

    await new Promise((resolve) => setTimeout(resolve, authorityMaxAgeMs));
    // Her sessions ended, and the access token with the session it belongs to.
    const refused = { status: 401, code: 'invalid_token' };
    expect(await consoleAnswers(betty)).toEqual([refused, refused, refused, refused]);
    expect(status(await betty.call('GET', '/api/me'))).toEqual(refused);
    // The refresh token she held is refused too.
    betty.cookies = refreshCookies;
    expect(status(await betty.call('POST', '/api/auth/refresh'))).toEqual(refused);
    // She is still a customer: signed in again, she has her account and no console.
    betty.accessToken = undefined;
    const again = await betty.call('POST', '/api/auth/login', { email: bettyEmail, password });
    expect(again.statusCode).toBe(200);
    expect((await betty.call('GET', '/api/me')).data).toMatchObject({ is_admin: false, role: 'client' });
    expect((await consoleAnswers(betty)).map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
  });

  it('the remover keeps the console', async () => {
    expect((await consoleAnswers(root)).slice(0, 3).map((answer) => answer.status)).toEqual([200, 200, 200]);
  });
});

describe('a session that ends', () => {
  it("takes its access tokens with it within a second; the person's other sessions go on", async () => {
    const email = 'dora@example.com';
    const laptop = await signUpConfirmed(stack, email, '198.51.100.33', password);
    const phone = new Client(stack.app, '198.51.100.34');
    expect((await phone.call('POST', '/api/auth/login', { email, password })).statusCode).toBe(200);
    expect((await laptop.call('GET', '/api/me')).statusCode).toBe(200);
    const laptopToken = laptop.accessToken;

    expect((await laptop.call('POST', '/api/auth/logout')).statusCode).toBeLessThan(300);
    await new Promise((resolve) => setTimeout(resolve, authorityMaxAgeMs));
    // The token is fifteen minutes from expiring, and refused: its session is over.
    laptop.accessToken = laptopToken;
    expect(status(await laptop.call('GET', '/api/me'))).toEqual({ status: 401, code: 'invalid_token' });
    expect((await phone.call('GET', '/api/me')).statusCode).toBe(200);
  });
});
