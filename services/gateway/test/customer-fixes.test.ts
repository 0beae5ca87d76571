import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually } from '@qw/testkit';
import { Client, confirmEmail, startStack, type Stack } from './support/stack.ts';
import { customerWithPlan, deviceServices } from './support/products.ts';
import { registerTestNode } from './support/nodes.ts';

/**
 * The small fixes of issue #15 through the real services: a device added before the address was
 * confirmed gets its configuration mail once it is; a config link that no longer works, opened in
 * a new tab, is a page with a way to sign in (JSON for the web app); a signed-out page load's
 * refresh is no error.
 */
let stack: Stack;
const password = 'correct horse battery';

beforeAll(async () => {
  stack = await startStack({ label: 'customerfixes', extra: deviceServices });
  await registerTestNode(stack, 'fixes-node');
});
afterAll(async () => {
  await stack?.stop();
});

const to = (mail: { to?: unknown }) => (mail.to as { text: string } | undefined)?.text;

describe('config mail and verification', () => {
  it('mails the config of a device added before the address was confirmed, once it is', async () => {
    const email = 'vera@example.com';
    const vera = await customerWithPlan(stack, email);
    const added = await vera.call('POST', '/api/devices', { name: 'Early laptop', platform: 'linux' });
    expect(added.statusCode).toBe(201);
    const provisioning = stack.services.provisioning!.db;
    // The mail waits for the address (not dropped, not given up).
    await eventually(async () => {
      const jobs = await sql<{ last_error: string | null; sent: boolean; given_up: boolean }>`
        select last_error, sent_at is not null as sent, given_up_at is not null as given_up
        from mail_jobs where kind = 'device-config'`.execute(provisioning);
      return jobs.rows.some((job) => job.last_error === 'waiting for the recipient' && !job.sent && !job.given_up);
    });
    expect(stack.smtp.messages.filter((m) => to(m) === email && m.subject?.includes('configuration'))).toEqual([]);

    await confirmEmail(stack, email, password);
    const mail = await stack.smtp.waitFor(
      (m) => to(m) === email && m.subject === 'Your Quietwire configuration for Early laptop',
      10_000,
    );
    expect(mail.attachments.some((a) => a.filename?.endsWith('.conf'))).toBe(true);
  });
});

describe('a config link opened in a new tab', () => {
  it('answers a page with the reason and a sign-in link for a browser, JSON for the app', async () => {
    const owner = await customerWithPlan(stack, 'lena@example.com');
    const created = await owner.call('POST', '/api/devices', { name: 'Phone', platform: 'linux' });
    expect(created.statusCode, created.body).toBe(201);
    const device = created.data.device ?? created.data;
    const link = await owner.call('POST', `/api/devices/${device.id}/config-link`);
    expect(link.statusCode, link.body).toBe(200);
    const anonymous = new Client(stack.app);
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const first = await anonymous.call('GET', link.data.url, undefined, html);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('[Interface]');

    for (const url of [link.data.url, `/api/device/${device.id}/config`, `/api/device/${device.id}/config?token=x`]) {
      const page = await anonymous.call('GET', url, undefined, html);
      expect(page.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('<h1>This config link does not work</h1>');
      expect(page.body).toContain('<a href="/login?next=%2Fapp">Sign in</a>');
    }
    const used = await anonymous.call('GET', link.data.url, undefined, html);
    expect(used.statusCode).toBe(410);
    expect(used.body).toContain('This download link has expired or was used. Open the config again from your devices.');
    expect((await anonymous.call('GET', `/api/device/${device.id}/config`, undefined, html)).statusCode).toBe(401);

    // The web app asks for JSON and gets the error body as before.
    const json = await anonymous.call('GET', link.data.url, undefined, { accept: 'application/json' });
    expect(json.statusCode).toBe(410);
    expect(json.data.error.code).toBe('link_expired');
  });
});

describe('a signed-out page load', () => {
  it('refreshes without a cookie to 204, no error; a stale cookie is still 401', async () => {
    const nobody = await new Client(stack.app).call('POST', '/api/auth/refresh');
    expect(nobody.statusCode).toBe(204);
    const stale = new Client(stack.app);
    stale.cookies.set('qw_refresh', 'no-such-token-no-such-token-no-such');
    expect((await stale.call('POST', '/api/auth/refresh')).statusCode).toBe(401);
  });
});
